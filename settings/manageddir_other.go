//go:build !unix

package settings

import "errors"

// adminOwned refuses PERMOPA_MANAGED_DIR where ownership cannot be
// checked: the managed directory is then the default (manageddir_unix.go).
func adminOwned(string) error {
	return errors.New("ownership of the directory cannot be checked on this system")
}
