//go:build unix

package hookproto

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/permopa/permopa/internal/hookwire"
)

// privateDir checks that dir is a directory (not a link) owned by this
// user that no other user can enter or write; ownSocket reports a unix
// socket of this user at path (hookwire).
func privateDir(dir string) error { return hookwire.PrivateDir(dir) }
func ownSocket(path string) bool  { return hookwire.OwnSocket(path) }

// PrepareSocket readies sock for a server to listen on: its directory is
// created 0700, or must be a private directory of this user (not a link,
// no access for others); a socket left by a server that is gone is
// removed; a live one is an error.
func PrepareSocket(sock string) error {
	dir := filepath.Dir(sock)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("socket directory: %w", err)
	}
	if err := privateDir(dir); err != nil {
		return fmt.Errorf("socket directory: %w; refusing to listen there", err)
	}
	if _, err := os.Lstat(sock); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if !ownSocket(sock) {
		return fmt.Errorf("%s exists and is not a socket of this user; refusing to replace it", sock)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if c, err := dial(ctx, "unix", sock); err == nil {
		c.Close()
		return fmt.Errorf("a server already listens on %s", sock)
	}
	return os.Remove(sock)
}
