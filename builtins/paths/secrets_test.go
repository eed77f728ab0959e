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
		{"/home/u/.cargo/config.toml", false, "`.cargo/config.toml` (makes tools run code)"},
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
		// Tool tokens, key stores, histories, browser profiles, agent hosts' logins.
		{"/home/u/.config/git/credentials", true, "`.config/git/credentials` file"},
		{"/home/u/.config/git/config", false, "`.config/git` directory"},
		{"/home/u/.config/rclone/rclone.conf", true, "`.config/rclone/rclone.conf` file"},
		{"/home/u/.config/hub", true, "`.config/hub` file"},
		{"/home/u/.terraform.d/credentials.tfrc.json", true, "`.terraform.d/credentials.tfrc.json` file"},
		{"/home/u/.pulumi/credentials.json", true, "`.pulumi/credentials.json` file"},
		{"/home/u/.m2/settings.xml", true, "`.m2/settings.xml` file"},
		{"/home/u/.gradle/gradle.properties", true, "`.gradle/gradle.properties` file"},
		{"/home/u/.s3cfg", true, "`.s3cfg` file"},
		{"/home/u/.boto", true, "`.boto` file"},
		{"/run/containers/0/auth.json", true, "`containers/0/auth.json` file"},
		{"/home/u/.config/containers/auth.json", true, "`containers/auth.json` file"},
		{"/home/u/.claude/.credentials.json", true, "`.claude/.credentials.json` file"},
		{"/home/u/.codex/auth.json", true, "`.codex/auth.json` file"},
		{"/home/u/.gemini/oauth_creds.json", true, "`.gemini/oauth_creds.json` file"},
		{"/p/certs/client.p12", true, "`client.p12` file"},
		{"/p/certs/site.PFX", true, "`site.PFX` file"},
		{"/home/u/putty.ppk", true, "`putty.ppk` file"},
		{"/p/android/release.keystore", true, "`release.keystore` file"},
		{"/p/app.jks", true, "`app.jks` file"},
		{"/home/u/.bash_history", true, "`.bash_history` file"},
		{"/home/u/.zsh_history", true, "`.zsh_history` file"},
		{"/home/u/.psql_history", true, "`.psql_history` file"},
		{"/home/u/.local/share/fish/fish_history", true, "`.local/share/fish/fish_history` file"},
		{"/home/u/.lesshst", true, "`.lesshst` file"},
		{"/home/u/.viminfo", true, "`.viminfo` file"},
		{"/home/u/.local/state/nvim/shada/main.shada", true, "`.local/state/nvim/shada` directory"},
		{"/var/run/secrets/kubernetes.io/serviceaccount/token", true, "`run/secrets` directory"},
		{"/run/secrets/db", true, "`run/secrets` directory"},
		{"/app/config/master.key", true, "`config/master.key` file"},
		{"/app/config/credentials/production.key", true, "`config/credentials/production.key` file"},
		{"/app/config/credentials.yml.enc", false, ""},
		{"/infra/terraform.tfstate", true, "`terraform.tfstate` file"},
		{"/infra/terraform.tfstate.backup", true, "`terraform.tfstate.backup` file"},
		{"/home/u/.my.cnf", true, "`.my.cnf` file"},
		{"/home/u/.config/sops/age/keys.txt", true, "`.config/sops/age` directory"},
		{"/home/u/.oci/config", true, "`.oci` directory"},
		{"/home/u/.config/op/config", true, "`.config/op` directory"},
		{"/home/u/.local/share/keyrings/login.keyring", true, "`.local/share/keyrings` directory"},
		{"/home/u/.password-store/site.gpg", true, "`.password-store` directory"},
		{"/home/u/.mozilla/firefox/x.default/logins.json", true, "`.mozilla` directory"},
		{"/home/u/.config/google-chrome/Default/Cookies", true, "`.config/google-chrome` directory"},
		{"/home/u/.config/chromium/Default/Login Data", true, "`.config/chromium` directory"},
		// Raw disks hold every file of their file system.
		{"/dev/sda", true, "raw disk device `/dev/sda`"},
		{"/dev/sdb3", true, "raw disk device `/dev/sdb3`"},
		{"/dev/nvme0n1", true, "raw disk device `/dev/nvme0n1`"},
		{"/dev/nvme0n1p2", true, "raw disk device `/dev/nvme0n1p2`"},
		{"/dev/vda1", true, "raw disk device `/dev/vda1`"},
		{"/dev/xvdf", true, "raw disk device `/dev/xvdf`"},
		{"/dev/mmcblk0p1", true, "raw disk device `/dev/mmcblk0p1`"},
		{"/dev/dm-0", true, "raw disk device `/dev/dm-0`"},
		{"/dev/md127", true, "raw disk device `/dev/md127`"},
		{"/dev/loop3", true, "raw disk device `/dev/loop3`"},
		{"/dev/nbd0", true, "raw disk device `/dev/nbd0`"},
		{"/dev/root", true, "raw disk device `/dev/root`"},
		{"/dev/mapper/vg-root", true, "`dev/mapper` directory"},
		{"/dev/disk/by-uuid/1234", true, "`dev/disk` directory"},
		{"/dev/block/8:0", true, "`dev/block` directory"},
		{"/dev/port", true, "`dev/port` file"},
		// Memory and volume block devices the first list missed.
		{"/dev/zram0", true, "raw disk device `/dev/zram0`"},
		{"/dev/ram0", true, "raw disk device `/dev/ram0`"},
		{"/dev/pmem0", true, "raw disk device `/dev/pmem0`"},
		{"/dev/bcache0", true, "raw disk device `/dev/bcache0`"},
		{"/dev/drbd1", true, "raw disk device `/dev/drbd1`"},
		{"/dev/sr0", true, "raw disk device `/dev/sr0`"},
		{"/dev/scd0", true, "raw disk device `/dev/scd0`"},
		{"/dev/mtdblock2", true, "raw disk device `/dev/mtdblock2`"},
		{"/dev/ubiblock0_1", true, "raw disk device `/dev/ubiblock0_1`"},
		{"/dev/zd16", true, "raw disk device `/dev/zd16`"},
		{"/dev/zvol/tank/vol", true, "`dev/zvol` directory"},
		{"/dev/random", false, ""},
		{"/dev/ramdisk-notes", false, ""},
		{"/dev/null", false, ""},
		{"/dev/shm/x", false, ""},
		{"/dev/stdin", false, ""},
		{"/dev/tty", false, ""},
		{"/p/dev/sdk.go", false, ""},
		{"/p/dev/sda", false, ""},
		{"/p/certs/ca.pem", false, ""},
		{"/p/certs/site.crt", false, ""},
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

// /proc/PID/root/X is X as process PID sees it, /proc/PID/cwd/X is X in
// the cwd: resolved without the magic links of permopa's own process
// (/proc/self is the reader), component by component, so that ".." after
// a magic link goes where the kernel goes. What cannot be known statically
// (another process's root, any process's working directory, open files)
// is flagged unknown (issue 23).
func TestResolveProc(t *testing.T) {
	cases := []struct {
		p, real string
		unknown bool
	}{
		{"/proc/1/root/etc/shadow", "/etc/shadow", true},
		{"/proc/self/root/etc/passwd", "/etc/passwd", false},
		{"/proc/thread-self/root/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa", false},
		{"/proc/self/task/7/root/etc/x", "/etc/x", false},
		{"/proc/self/task/*/root/etc/x", "/etc/x", false},
		{"/proc/*/root/etc/x", "/etc/x", true},
		{"/proc/1/task/1/root/etc/shadow", "/etc/shadow", true},
		{"/proc/1/root/proc/self/root/etc/shadow", "/etc/shadow", true},
		{"/proc/1/root", "/", true},
		{"/proc/1/root/../etc/shadow", "/etc/shadow", true},
		{"/proc/self/root/../../etc/x", "/etc/x", false},
		{"/proc/self/environ", "/proc/self/environ", false},
		{"/proc/self/cwd/x", "/w/x", true},
		{"/proc/thread-self/cwd/x", "/w/x", true},
		{"/proc/self/cwd/../../home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa", true},
		{"/proc/self/task/3/cwd/../etc/x", "/etc/x", true},
		{"/proc/1/cwd/x", "/w/x", true},
		{"/proc/1/fd/3", "/proc/1/fd/3", true},
		{"/proc/self/fd/3/../../x", "/proc/self/x", true},
		{"/dev/fd/3", "/proc/self/fd/3", true},
		{"/dev/stdin", "/proc/self/fd/0", true},
		{"/proc/1/root2/x", "/proc/1/root2/x", false},
		{"/proc/1/cwdx", "/proc/1/cwdx", false},
		{"/proc/cpuinfo", "/proc/cpuinfo", false},
		{"/proc/sys/kernel/root/x", "/proc/sys/kernel/root/x", false},
	}
	for _, c := range cases {
		r := ResolvePath(c.p, "/w", "/home/u")
		if r.Real != c.real || (r.Unknown != "") != c.unknown {
			t.Errorf("ResolvePath(%q) = %q (unknown %q), want %q (unknown %v)", c.p, r.Real, r.Unknown, c.real, c.unknown)
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

// A link into /proc or /dev/fd is resolved by the same rules as the path
// spelled there, even where the kernel finds nothing (a process that does
// not exist, a /dev without fd): never taken as a plain path (issue 23).
func TestLinksIntoProcAreResolvedAsProc(t *testing.T) {
	root := tempRoot(t)
	symlink(t, "/proc/999999999/cwd", root+"/gone")
	symlink(t, "/proc/self/cwd", root+"/here")
	symlink(t, "/dev/fd/9", root+"/fd")
	for _, c := range []struct{ p, real string }{
		{root + "/gone/x", "/w/x"},
		{root + "/here/../etc/x", "/etc/x"},
		{root + "/fd", "/proc/self/fd/9"},
	} {
		r := ResolvePath(c.p, "/w", "/home/u")
		if r.Real != c.real || r.Unknown == "" {
			t.Errorf("ResolvePath(%q) = %q (unknown %q), want %q, unknown", c.p, r.Real, r.Unknown, c.real)
		}
	}
}
