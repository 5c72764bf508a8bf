// Package arch holds no code: its test keeps ARCHITECTURE.md's import table true, by reading
// the table and checking it against `go list -deps` of every package of the module.
package arch
