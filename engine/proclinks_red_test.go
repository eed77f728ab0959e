package engine_test

import "testing"

// /proc's own links: /proc/self is PID, /proc/thread-self PID/task/TID,
// /proc/net self/net. A ".." after one goes to the parent of its target,
// as the kernel goes: /proc/thread-self/../../cwd is the opening
// process's cwd, /proc/net/../cwd too, /proc/self/../1/cwd another
// process's. Read lexically (/proc/thread-self/../.. as "/"), such a path
// was a plain file nobody's rule named: the Read tool and cat were
// read-only past Read(./secrets/**), and in BYPASS read ~/.ssh/id_rsa
// past Read(~/.ssh/**) (docs/reads.md, "One resolution").
func TestProcLinksDotDot(t *testing.T) {
	t.Parallel()
	home, proj := resolutionFixture(t)
	const keyDeny, secretDeny = "Read(~/.ssh/**)", "Read(./secrets/**)"
	eng := ruleEngine(t, home, proj, "deny:"+keyDeny, "deny:"+secretDeny)
	// A path through the opening process's cwd may be below any directory
	// (the process may change directory first): any deny rule that could
	// match it denies it ("any").
	const anyDeny = "any deny rule"
	reads := map[string]string{
		"/proc/thread-self/../../cwd/secrets/db.txt":      anyDeny,
		"/proc/net/../cwd/secrets/db.txt":                 anyDeny,
		"/proc/thread-self/../../task/1/cwd/secrets/x":    anyDeny,
		"/proc/self/task/../cwd/secrets/x":                anyDeny,
		"/dev/fd/../cwd/secrets/x":                        anyDeny,
		"/proc/thread-self/../../cwd/../.ssh/id_rsa":      keyDeny,
		"/proc/net/../cwd/../.ssh/id_rsa":                 keyDeny,
		"/proc/self/../1/cwd/.ssh/id_rsa":                 keyDeny,
		"/proc/thread-self/../../../1/cwd/.ssh/id_rsa":    keyDeny,
		"/proc/self/task/../../1/task/1/cwd/.ssh/id_rsa":  keyDeny,
		"/proc/thread-self/../../root" + home + "/.ssh/x": keyDeny,
		"/proc/net/../root" + home + "/.ssh/x":            keyDeny,
		"/proc/self/../1/fd/3/.ssh/id_rsa":                keyDeny,
	}
	for p, want := range reads {
		for _, mode := range allModes {
			r := decideTool(eng, "Read", map[string]any{"file_path": p}, proj, mode)
			b := decideBash(eng, "cat "+p, proj, mode)
			if w := want; w == anyDeny && ruleOf(r) != "" && ruleOf(b) != "" || ruleOf(r) == w && ruleOf(b) == w {
				continue
			}
			{
				t.Errorf("%s: %s: Read tool %s/%s by %q, cat %s/%s by %q; want both denied by %q",
					mode, p, r.Behavior, r.Step, ruleOf(r), b.Behavior, b.Step, ruleOf(b), want)
			}
		}
	}
}
