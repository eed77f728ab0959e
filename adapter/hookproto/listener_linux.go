package hookproto

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// checkTCPListener refuses a loopback TCP server whose listening socket
// belongs to another user (neither this one nor root), as checkSocketOwner
// does for unix sockets: any local user can listen on a free port, and the
// hook would present the token to it and take its answers. The owner is
// read from /proc/net/tcp and tcp6; a listener that cannot be found there
// is left to connect to fail or succeed.
func checkTCPListener(ap netip.AddrPort) error {
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		uid, found := listenerUID(file, ap)
		if found && uid != os.Getuid() && uid != 0 {
			return &untrustedError{fmt.Errorf("the server listening on %s belongs to uid %d, not to this user (uid %d) or root: refusing to send it the token or take its answers", ap, uid, os.Getuid())}
		}
	}
	return nil
}

// listenerUID finds the listening socket for ap (on its address or on
// every address) in a /proc/net/tcp* file.
func listenerUID(file string, ap netip.AddrPort) (int, bool) {
	f, err := os.Open(file)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[3] != "0A" { // 0A: LISTEN
			continue
		}
		addr, port, ok := parseProcAddr(fields[1])
		if !ok || port != ap.Port() {
			continue
		}
		if addr.Unmap() != ap.Addr().Unmap() && !addr.IsUnspecified() {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			continue
		}
		return uid, true
	}
	return 0, false
}

// parseProcAddr reads "0100007F:1F90": the address as 32-bit words in
// the kernel's byte order, the port in hex.
func parseProcAddr(s string) (netip.Addr, uint16, bool) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.Addr{}, 0, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.Addr{}, 0, false
	}
	raw, err := hex.DecodeString(a)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, false
	}
	out := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(out[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(out)
	return addr, uint16(port), true
}
