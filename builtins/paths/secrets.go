package paths

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
		// Another process's environment and memory, and the kernel's.
		{name: "proc/*/environ", credential: true}, {name: "proc/*/task/*/environ", credential: true},
		{name: "proc/*/mem", credential: true}, {name: "proc/*/task/*/mem", credential: true},
		{name: "proc/kcore", credential: true}, {name: "dev/mem", credential: true}, {name: "dev/kmem", credential: true},
	}
	secretDirectories = []entrySpec{
		{name: "etc/ssl/private", credential: true},
		{name: ".config/gcloud", credential: true}, {name: ".azure", credential: true},
		// A process's working directory and open files: what they are
		// cannot be known from the command (the process, or the directory
		// the command's shell is in by then), so they fail closed.
		{name: "proc/*/cwd", credential: true}, {name: "proc/*/task/*/cwd", credential: true},
		{name: "proc/*/fd", credential: true}, {name: "proc/*/task/*/fd", credential: true},
		{name: "proc/*/map_files", credential: true}, {name: "proc/*/task/*/map_files", credential: true},
	}
)
