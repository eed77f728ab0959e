package paths

import "testing"

// TestProcLinksDotDotResolve: a ".." after /proc's own links goes to the
// parent of their target (/proc/thread-self is PID/task/TID, /proc/net is
// self/net), and Tail is what the path names below the last working
// directory or open file it goes through, whatever ".." came before.
func TestProcLinksDotDotResolve(t *testing.T) {
	const cwd, home = "/w/p", "/home/u"
	for _, tc := range []struct {
		p, real, tail string
		unknown       bool
	}{
		{"/proc/thread-self/../../cwd/s/x", "/w/p/s/x", "s/x", true},
		{"/proc/thread-self/..", "/proc/self/task", "", false},
		{"/proc/thread-self/../../root/etc/shadow", "/etc/shadow", "", false},
		{"/proc/thread-self/../../../1/cwd/.ssh/k", "/w/p/.ssh/k", ".ssh/k", true},
		{"/proc/net/../cwd/../.ssh/k", "/w/.ssh/k", ".ssh/k", true},
		{"/proc/net/dev/../../environ", "/proc/self/environ", "", false},
		{"/proc/self/../1/cwd/.ssh/k", "/w/p/.ssh/k", ".ssh/k", true},
		{"/proc/self/task/../../1/fd/3/.ssh/k", "/proc/1/fd/3/.ssh/k", ".ssh/k", true},
		{"/proc/self/fd/../cwd/x", "/w/p/x", "x", true},
		{"/dev/fd/../cwd/a/../b", "/w/p/b", "b", true},
		{"/dev/stdin/x", "/proc/self/fd/0/x", "x", true},
		{"/proc/self/cwd/a/../../b", "/w/b", "b", true},
		{"/proc/1/root/etc/x", "/etc/x", "", true},
	} {
		r := ResolvePath(tc.p, cwd, home)
		if r.Real != tc.real || r.Tail != tc.tail || (r.Unknown != "") != tc.unknown {
			t.Errorf("%s: Real %q Tail %q Unknown %q; want %q %q unknown=%v", tc.p, r.Real, r.Tail, r.Unknown, tc.real, tc.tail, tc.unknown)
		}
	}
}
