//go:build !unix

package hookproto

import "errors"

func privateDir(string) error { return errors.New("no per-user socket on this system") }

func ownSocket(string) bool { return false }

// PrepareSocket: there is no per-user default socket on this system.
func PrepareSocket(string) error { return errors.New("no per-user socket on this system: give --addr") }
