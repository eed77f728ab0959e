//go:build !unix

package adapter

import (
	"errors"
	"fmt"
	"os"
)

// fileStamp is what changes when a file is written, replaced or chmod'ed.
func fileStamp(fi os.FileInfo, err error) string {
	if err != nil {
		return fmt.Sprintf("|err %v", errors.Unwrap(err))
	}
	return fmt.Sprintf("|%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
}
