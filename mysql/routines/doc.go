// Package routines owns stored functions (CREATE FUNCTION): parsing their
// definition, the procedure each runs as, and the calls in expressions.
// go-mysql-server v0.20 parses and runs stored procedures but has no
// stored functions; a function here is a procedure with one result.
//
// Its rules, cited where they are implemented:
//
// FN-1 A function is kept as written and as a procedure (parse.go): the
// parameters become IN parameters, the body is the procedure's block
// (labelled strata_function unless it has a label; a single-statement
// body goes inside one), and each RETURN expr becomes SELECT (expr) AS
// strata_return followed by LEAVE of that label. The catalog keeps both
// (backend CAT-6), the procedure under a hidden name that only a call
// reaches.
//
// FN-2 A call evaluates its arguments, runs CALL of that procedure through
// go-mysql-server's interpreter in the caller's session and transaction
// (marked interpreted, so it never commits on its own), and converts the
// one value it returned to the RETURNS type (call.go). A body that is a
// single RETURN expr runs as SELECT (expr) with the arguments (converted to
// the parameters' types) in place of the parameters, skipping the
// interpreter, when the function is in the current database and the user
// holds EXECUTE on it; otherwise the CALL runs. A body that ends
// without RETURN is 1321; a function that calls itself, directly or not,
// is 1424, as MySQL forbids recursive functions.
//
// FN-3 f(...) names a function of the current database unless f is a
// built-in function, which wins as in MySQL (a db.f(...) call is not
// parsed by go-mysql-server: a known limit).
//
// FN-4 CREATE FUNCTION needs CREATE ROUTINE on the database, DROP FUNCTION
// ALTER ROUTINE, a call EXECUTE (the CALL it runs checks it); SHOW CREATE
// FUNCTION and SHOW FUNCTION STATUS show what the user may see (server
// functions.go).
//
// Tested by routines' unit tests (parsing and translation) and by server
// tests that create, call, dump and drop functions through a driver.
package routines
