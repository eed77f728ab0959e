//go:build hostse2e

package hosts_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bins holds the permopa binaries built for the run.
var bins struct{ permopa, permopaHook, dir string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "permopa-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.dir = dir
	// `permopa install` refuses a binary in the temporary directory (it
	// would not stay): the runs' temporary files go to one of their own,
	// which does not hold the binaries.
	tmp, err := os.MkdirTemp("", "pe2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	// A runtime directory of the tests' own: the hooks ask a permopa server
	// on the per-user socket under it by default (docs/hosts.md, "Fast
	// path"), and a server the machine's user runs must not answer here.
	rt := filepath.Join(dir, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_RUNTIME_DIR", rt)
	bins.permopa = filepath.Join(dir, "permopa")
	bins.permopaHook = filepath.Join(dir, "permopa-hook")
	// All three, side by side as `go install ./cmd/...` puts them:
	// `permopa install` then writes permopa-hook, which decides through
	// permopa-hook-local (docs/hosts.md, "Fast path").
	for _, b := range [][2]string{
		{bins.permopa, "../../cmd/permopa"},
		{bins.permopaHook, "../../cmd/permopa-hook"},
		{filepath.Join(dir, "permopa-hook-local"), "../../cmd/permopa-hook-local"},
	} {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", b[1], err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(tmp)
	os.Exit(code)
}

// hostsDir is where .ci/run installed the host CLIs.
func hostsDir() string {
	if d := os.Getenv("PERMOPA_HOSTS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "permopa", "hosts")
}

type hostPin struct{ host, pkg, version, binary string }

func pins(t *testing.T) map[string]hostPin {
	t.Helper()
	f, err := os.Open("hosts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]hostPin{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("hosts.txt: bad line %q", line)
		}
		out[f[0]] = hostPin{f[0], f[1], f[2], f[3]}
	}
	return out
}

// hostBinary is the installed CLI of host. When .ci/run could not reach the
// npm registry it leaves a note, and the test is skipped with that note in
// big letters; a CLI that is missing for any other reason fails the test.
func hostBinary(t *testing.T, host string) (string, hostPin) {
	t.Helper()
	p, ok := pins(t)[host]
	if !ok {
		t.Fatalf("hosts.txt pins no %s", host)
	}
	dir := filepath.Join(hostsDir(), host+"-"+p.version)
	bin := filepath.Join(dir, "node_modules", ".bin", p.binary)
	if _, err := os.Stat(bin); err == nil {
		return bin, p
	}
	if note, err := os.ReadFile(filepath.Join(hostsDir(), "REGISTRY-UNREACHABLE")); err == nil {
		msg := fmt.Sprintf("\n\n######## SKIPPED: %s %s is not installed because the npm registry could not be reached: %s ########\n\n", p.pkg, p.version, strings.TrimSpace(string(note)))
		fmt.Fprint(os.Stderr, msg)
		t.Skip(msg)
	}
	t.Fatalf("%s %s is not installed at %s: run .ci/run (or `npm install --prefix %s %s@%s`), or set PERMOPA_HOSTS_DIR", p.pkg, p.version, bin, dir, p.pkg, p.version)
	return "", p
}

// run runs a host CLI with env (added to a clean environment), in dir,
// with a deadline, and returns its combined output.
func run(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + bins.dir + ":" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
	}, env...)
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %s: %v", timeout, err)
	}
	return out.String(), err
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
