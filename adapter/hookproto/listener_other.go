//go:build !linux

package hookproto

import "net/netip"

// checkTCPListener cannot see a listener's owner here: the token and the
// socket's file permissions are what protect (docs/hosts.md).
func checkTCPListener(netip.AddrPort) error { return nil }
