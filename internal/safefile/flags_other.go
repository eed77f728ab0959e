//go:build !unix

package safefile

// Without O_NOFOLLOW the Lstat checks before and after the open stand
// alone.
const (
	noFollow = 0
	nonBlock = 0
)
