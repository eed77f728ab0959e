package paths

import "strings"

// Credential paths beyond the shell profiles and key files of dangerous.go:
// system secrets, the secret stores of common tools, and what /proc reaches
// in other processes. They are credential entries (reads are protected, and
// every credential path is dangerous to write), matched like the defaults:
// a name of several segments matches the trailing segments of a path (so
// "etc/shadow" also names /proc/1/root/etc/shadow and a container's
// /var/lib/…/etc/shadow), "*" stands for one segment (a process id).
//
// Deliberately not here: /etc/passwd and /etc/group (world-readable, no
// secret), /etc/sudoers (configuration, not a secret; writing it is a
// question for the dangerous list), /proc/PID/cmdline (ps prints every
// command line anyway). /proc/PID/root is resolved, not listed: see
// procStep in resolve.go.
var (
	secretFiles = []entrySpec{
		// Password hashes, and their backups.
		{name: "etc/shadow", credential: true}, {name: "etc/shadow-", credential: true},
		{name: "etc/gshadow", credential: true}, {name: "etc/gshadow-", credential: true},
		{name: "etc/master.passwd", credential: true}, {name: "etc/security/opasswd", credential: true},
		// Host private keys (their .pub halves do not end in _key) and Kerberos keytabs.
		{name: "ssh_host_*_key", credential: true}, {name: "*.keytab", credential: true},
		// Tokens and passwords that tools keep in plain text.
		{name: ".git-credentials", credential: true}, {name: ".pgpass", credential: true},
		{name: ".vault-token", credential: true},
		{name: ".cargo/credentials", credential: true}, {name: ".cargo/credentials.toml", credential: true},
		// git's credential store at its XDG place, and the tokens other
		// tools keep in plain text in their configuration.
		{name: ".config/git/credentials", credential: true},
		{name: ".config/rclone/rclone.conf", credential: true}, {name: ".config/hub", credential: true},
		{name: ".terraform.d/credentials.tfrc.json", credential: true}, {name: ".pulumi/credentials.json", credential: true},
		{name: ".m2/settings.xml", credential: true}, {name: ".m2/settings-security.xml", credential: true},
		{name: ".gradle/gradle.properties", credential: true},
		{name: ".s3cfg", credential: true}, {name: ".boto", credential: true}, {name: ".databrickscfg", credential: true},
		{name: "containers/auth.json", credential: true}, {name: "containers/*/auth.json", credential: true},
		// The agent hosts' own login tokens: with one, the agent's account
		// can be used from anywhere.
		{name: ".claude/.credentials.json", credential: true}, {name: ".codex/auth.json", credential: true},
		{name: ".gemini/oauth_creds.json", credential: true},
		// Private key stores under their usual extensions (public
		// certificates are .pem/.crt and stay readable).
		{name: "*.p12", credential: true}, {name: "*.pfx", credential: true}, {name: "*.ppk", credential: true},
		{name: "*.jks", credential: true}, {name: "*.keystore", credential: true},
		// Shell and client histories keep the passwords typed on command
		// lines (mysql -pSECRET, export TOKEN=...).
		{name: ".bash_history", credential: true}, {name: ".zsh_history", credential: true},
		{name: ".psql_history", credential: true}, {name: ".mysql_history", credential: true},
		{name: ".python_history", credential: true}, {name: ".node_repl_history", credential: true},
		{name: ".local/share/fish/fish_history", credential: true}, {name: ".config/fish/fish_history", credential: true},
		{name: ".sh_history", credential: true}, {name: ".ksh_history", credential: true},
		{name: ".ash_history", credential: true}, {name: ".zhistory", credential: true},
		{name: ".histfile", credential: true}, {name: ".sqlite_history", credential: true},
		{name: ".rediscli_history", credential: true}, {name: ".dbshell", credential: true},
		{name: ".irb_history", credential: true}, {name: ".pry_history", credential: true},
		// less keeps its search strings and the shell commands typed at
		// "!", vim (viminfo) and neovim (shada) their registers (what was
		// yanked) and command lines.
		{name: ".lesshst", credential: true}, {name: ".viminfo", credential: true},
		// Client passwords and API tokens in plain text: MySQL's client
		// file, RubyGems, GitLab's CLI, MinIO's client, fly.io, ngrok,
		// Hetzner, CircleCI's CLI, Composer.
		{name: ".my.cnf", credential: true}, {name: ".gem/credentials", credential: true},
		{name: ".config/glab-cli/config.yml", credential: true}, {name: ".mc/config.json", credential: true},
		{name: ".fly/config.yml", credential: true}, {name: ".config/ngrok/ngrok.yml", credential: true},
		{name: ".ngrok2/ngrok.yml", credential: true}, {name: ".config/hcloud/cli.toml", credential: true},
		{name: ".circleci/cli.yml", credential: true}, {name: ".config/composer/auth.json", credential: true},
		{name: ".composer/auth.json", credential: true},
		// A project's own secrets: Rails' master key (it decrypts
		// config/credentials.yml.enc) and per-environment keys, and
		// Terraform state, which holds every secret of the resources it
		// manages in plain text.
		{name: "config/master.key", credential: true}, {name: "config/credentials/*.key", credential: true},
		{name: "*.tfstate", credential: true}, {name: "*.tfstate.backup", credential: true},
		// Another process's environment and memory, and the kernel's.
		{name: "proc/*/environ", credential: true}, {name: "proc/*/task/*/environ", credential: true},
		{name: "proc/*/mem", credential: true}, {name: "proc/*/task/*/mem", credential: true},
		{name: "proc/kcore", credential: true}, {name: "dev/mem", credential: true}, {name: "dev/kmem", credential: true},
		{name: "dev/port", credential: true},
	}
	secretDirectories = []entrySpec{
		{name: "etc/ssl/private", credential: true},
		{name: ".config/gcloud", credential: true}, {name: ".azure", credential: true},
		{name: ".oci", credential: true}, {name: ".config/doctl", credential: true}, {name: ".config/op", credential: true},
		// Secret stores and browser profiles (saved passwords, session cookies).
		{name: ".local/share/keyrings", credential: true}, {name: ".password-store", credential: true},
		{name: ".local/share/nvim/shada", credential: true}, {name: ".local/state/nvim/shada", credential: true},
		// Secrets mounted into containers: Kubernetes service-account
		// tokens (/var/run/secrets/kubernetes.io/serviceaccount/token),
		// Docker and Compose secrets (/run/secrets/NAME).
		{name: "run/secrets", credential: true},
		// Token stores of CLIs: age keys for sops, firebase-tools and other
		// configstore users, the Teleport client's keys, minikube's client
		// keys.
		{name: ".config/sops/age", credential: true}, {name: ".config/configstore", credential: true},
		{name: ".tsh", credential: true}, {name: ".minikube/profiles", credential: true},
		{name: ".mozilla", credential: true}, {name: ".config/google-chrome", credential: true},
		{name: ".config/chromium", credential: true}, {name: ".config/BraveSoftware", credential: true},
		// Raw disks: reading one reads every file on it (/etc/shadow,
		// ~/.ssh) past every path check. The device names are in
		// rawDiskDevice; these are the directories of their other names.
		{name: "dev/mapper", credential: true}, {name: "dev/disk", credential: true}, {name: "dev/block", credential: true},
		{name: "dev/zvol", credential: true},
		// A process's working directory and open files: what they are
		// cannot be known from the command (the process, or the directory
		// the command's shell is in by then), so they fail closed.
		{name: "proc/*/cwd", credential: true}, {name: "proc/*/task/*/cwd", credential: true},
		{name: "proc/*/fd", credential: true}, {name: "proc/*/task/*/fd", credential: true},
		{name: "proc/*/map_files", credential: true}, {name: "proc/*/task/*/map_files", credential: true},
	}
)

// rawDiskDevices are the names of block devices under /dev (disks,
// partitions, device-mapper and md volumes, loop and network block devices)
// before their number or, for the letter-named disks, their letter. Only
// absolute /dev paths are matched: a project's dev/sdk.go is no disk.
var rawDiskDevices = []struct {
	prefix  string
	letters bool // sda, hdb, vdc, xvda: a letter follows
}{
	{"sd", true}, {"hd", true}, {"vd", true}, {"xvd", true},
	{"nvme", false}, {"mmcblk", false}, {"dm-", false}, {"md", false}, {"loop", false},
	{"nbd", false}, {"zd", false}, {"rbd", false},
	// zram is compressed memory, as often swap (the pages of every
	// process); ram and pmem are memory disks; bcache and drbd are volumes
	// over other disks; sr and scd optical drives; mtdblock and ubiblock
	// flash volumes.
	{"zram", false}, {"ram", false}, {"pmem", false}, {"bcache", false}, {"drbd", false},
	{"sr", false}, {"scd", false}, {"mtdblock", false}, {"ubiblock", false},
}

// rawDiskDevice reports whether p (lower-cased, absolute, cleaned) names a
// block device whose contents are every file of a file system, and its name.
func rawDiskDevice(p string) (string, bool) {
	name, ok := strings.CutPrefix(p, "/dev/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	if name == "root" {
		return name, true
	}
	for _, d := range rawDiskDevices {
		rest, ok := strings.CutPrefix(name, d.prefix)
		if !ok || rest == "" {
			continue
		}
		if c := rest[0]; c >= '0' && c <= '9' || d.letters && c >= 'a' && c <= 'z' {
			return name, true
		}
	}
	return "", false
}
