package engine_test

import (
	"context"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Commands that only read are ALLOWed in EXPLORE as read-only; their
// writing, executing or egress twins are not (EXPLORE denies, DEFAULT asks),
// across the classes added for real-world recall (issue 10): archivers,
// compressors, pagers, openssl, ip, signals, git, find values, env.
func TestRealWorldClassesEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}))
	if err != nil {
		t.Fatal(err)
	}
	readOnly := []string{
		"tar tvf a.tar", "tar -tzf a.tgz | head", "tar xOf a.tar a/x", "unzip -l a.zip", "zipinfo -1 a.zip",
		"gzip --list f.gz", "xz -dc f.xz | wc -l", "zcat f.gz", "bzip2 -dc f.bz2", "zstd -dc f.zst",
		"less notes.txt", "less +G app.log", "more README.md", "openssl x509 -in cert.pem -noout -text",
		"openssl dgst -sha256 notes.txt", "ip address", "ip -br a s", "ip route get 1.1.1.1", "lsblk -f", "findmnt /",
		"vmstat 1 2", "kill -l", "pgrep -f node", "git hash-object notes.txt", "git clean -n -d",
		"find . -name '-delete'", "find . -path '*/-exec/*' -print", "env -i cat notes.txt", "ss -tlnp",
		"dmesg -T", "sysctl -a", "readelf -h bin/app", "top -b -n 1", "watch -n 5 git status",
	}
	notReadOnly := []string{
		"tar xvf a.tar", "tar czf out.tgz src", "tar -tf a.tar --to-command=sh", "tar -tf host:a.tar", "unzip a.zip",
		"gzip notes.txt", "xz -d f.xz", "zstd -dc f.zst -o out", "less -o log notes.txt", "less '+!id' notes.txt",
		"openssl x509 -in cert.pem -out x.pem", "openssl s_client -connect example.com:443", "ip link set eth0 up",
		"ip l s eth0 up", "kill 1234", "pkill node", "git hash-object -w notes.txt", "git clean -f",
		"find . -name x -delete", "env X=1 cat notes.txt", "ss dst example.com", "dmesg -C", "sysctl -w a.b=1",
		"curl -s https://example.com", "ping -c 1 example.com", "dig example.com", "git ls-remote https://example.com/r.git",
		"ldd bin/app", "watch rm x",
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"permission_mode": mode, "cwd": "/w"})
	}
	for _, c := range readOnly {
		if d := decide(c, "plan"); d.Behavior != permission.Allow || d.Step != permission.StepReadOnly {
			t.Errorf("%q in plan: %s at %s (%s), want ALLOW at read_only", c, d.Behavior, d.Step, d.Message)
		}
	}
	for _, c := range notReadOnly {
		if d := decide(c, "plan"); d.Behavior == permission.Allow {
			t.Errorf("%q in plan: ALLOW at %s, want not read-only", c, d.Step)
		}
		if d := decide(c, "default"); d.Step == permission.StepReadOnly {
			t.Errorf("%q in default: decided read-only", c)
		}
	}
}
