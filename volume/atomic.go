package volume

// AtomicWriter is a volume that can issue a write the kernel guarantees not
// to tear (RWF_ATOMIC), up to its AtomicWriteUnit.
type AtomicWriter interface {
	WriteAtomic(p []byte, off int64) error
}
