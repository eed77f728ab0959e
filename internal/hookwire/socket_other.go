//go:build !unix

package hookwire

import "errors"

// PrivateDir: there is no per-user socket on this system.
func PrivateDir(string) error { return errors.New("no per-user socket on this system") }

// OwnSocket: there is no per-user socket on this system.
func OwnSocket(string) bool { return false }
