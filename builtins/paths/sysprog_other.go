//go:build !unix

package paths

// SystemProgram reports whether p names a program of the system; outside
// Unix no path-qualified program is taken for one.
func SystemProgram(string) bool { return false }
