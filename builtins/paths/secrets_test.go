package paths

import "testing"

// Secrets outside the shell profiles and key files: system password hashes,
// host keys, tool tokens, and what /proc reaches in other processes.
func TestClassifySecrets(t *testing.T) {
	cases := []struct {
		p          string
		credential bool
		reason     string
	}{
		{"/etc/shadow", true, "`etc/shadow` file"},
		{"/etc/shadow-", true, "`etc/shadow-` file"},
		{"/etc/gshadow", true, "`etc/gshadow` file"},
		{"/etc/gshadow-", true, "`etc/gshadow-` file"},
		{"/etc/master.passwd", true, "`etc/master.passwd` file"},
		{"/etc/security/opasswd", true, "`etc/security/opasswd` file"},
		{"/var/lib/docker/overlay2/x/merged/etc/shadow", true, "`etc/shadow` file"},
		{"/etc/ssh/ssh_host_ed25519_key", true, "`ssh_host_ed25519_key` file"},
		{"/etc/ssh/ssh_host_ed25519_key.pub", false, ""},
		{"/etc/krb5.keytab", true, "`krb5.keytab` file"},
		{"/etc/ssl/private/server.key", true, "`etc/ssl/private` directory"},
		{"/etc/ssl/certs/ca.pem", false, ""},
		{"/home/u/.git-credentials", true, "`.git-credentials` file"},
		{"/home/u/.pgpass", true, "`.pgpass` file"},
		{"/home/u/.vault-token", true, "`.vault-token` file"},
		{"/home/u/.cargo/credentials.toml", true, "`.cargo/credentials.toml` file"},
		{"/home/u/.cargo/config.toml", false, ""},
		{"/home/u/.config/gcloud/application_default_credentials.json", true, "`.config/gcloud` directory"},
		{"/home/u/.azure/msal_token_cache.json", true, "`.azure` directory"},
		{"/proc/self/environ", true, "`proc/self/environ` file"},
		{"/proc/1/environ", true, "`proc/1/environ` file"},
		{"/proc/1/task/7/environ", true, "`proc/1/task/7/environ` file"},
		{"/proc/thread-self/environ", true, "`proc/thread-self/environ` file"},
		{"/proc/42/mem", true, "`proc/42/mem` file"},
		{"/proc/kcore", true, "`proc/kcore` file"},
		{"/dev/mem", true, "`dev/mem` file"},
		{"/proc/1/cwd", true, "`proc/1/cwd` directory"},
		{"/proc/self/cwd/.bashrc", true, "`proc/self/cwd` directory"},
		{"/proc/1/fd/3", true, "`proc/1/fd` directory"},
		{"/proc/1/task/1/fd/0", true, "`proc/1/task/1/fd` directory"},
		{"/proc/1/map_files/5555-6666", true, "`proc/1/map_files` directory"},
		// Not secrets: world-readable facts, and what ps prints anyway.
		{"/etc/passwd", false, ""},
		{"/etc/group", false, ""},
		{"/etc/sudoers", false, ""},
		{"/proc/1/cmdline", false, ""},
		{"/proc/cpuinfo", false, ""},
		{"/proc/self/status", false, ""},
		{"/p/src/environ.go", false, ""},
	}
	for _, c := range cases {
		d, cred, reason := Classify(c.p, nil)
		if cred != c.credential || reason != c.reason || (c.credential && !d) {
			t.Errorf("Classify(%q) = %v, %v, %q; want credential %v, %q", c.p, d, cred, reason, c.credential, c.reason)
		}
	}
}

// /proc/PID/root/X is X as process PID sees it: resolved lexically, without
// the magic links of permopa's own process (/proc/self is the reader).
func TestResolveProc(t *testing.T) {
	cases := []struct{ p, real string }{
		{"/proc/1/root/etc/shadow", "/etc/shadow"},
		{"/proc/self/root/etc/passwd", "/etc/passwd"},
		{"/proc/thread-self/root/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa"},
		{"/proc/1/task/1/root/etc/shadow", "/etc/shadow"},
		{"/proc/1/root/proc/self/root/etc/shadow", "/etc/shadow"},
		{"/proc/1/root", "/"},
		{"/proc/1/root/../etc/shadow", "/etc/shadow"},
		{"/proc/self/environ", "/proc/self/environ"},
		{"/proc/self/cwd/x", "/proc/self/cwd/x"},
		{"/proc/1/fd/3", "/proc/1/fd/3"},
		{"/proc/1/root2/x", "/proc/1/root2/x"},
		{"/proc/cpuinfo", "/proc/cpuinfo"},
	}
	for _, c := range cases {
		if r := ResolvePath(c.p, "/w", "/home/u"); r.Real != c.real {
			t.Errorf("ResolvePath(%q).Real = %q, want %q", c.p, r.Real, c.real)
		}
	}
	// A symlink into /proc is resolved through the same rules.
	root := tempRoot(t)
	symlink(t, "/proc/1/root/etc", root+"/l")
	if r := ResolvePath(root+"/l/shadow", "/", ""); r.Real != "/etc/shadow" {
		t.Errorf("through a link into /proc: %q", r.Real)
	}
	if _, c, _ := Classify(ResolvePath("/proc/1/root/home/u/.aws/config", "/", "").Real, nil); !c {
		t.Error("/proc/1/root/home/u/.aws/config is not a credential path")
	}
}
