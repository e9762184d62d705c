module strata

go 1.26.8

require (
	github.com/google/btree v1.1.3 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
