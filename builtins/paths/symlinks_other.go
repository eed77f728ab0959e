//go:build !linux

package paths

// symlinkFree would need a platform-specific fast check; elsewhere the
// caller walks the path.
func symlinkFree(string) bool { return false }
