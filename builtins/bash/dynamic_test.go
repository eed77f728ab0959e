package bash

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/permopa/permopa/builtins/flagspec"
)

// The dynamic check runs commands under strace in a throwaway copy of a
// fixture tree — a home directory with fake credentials and a git project —
// with no network (a new network namespace), in a new PID namespace, as an
// unprivileged user (nobody when the test runs as root), and reports every
// effect a read-only command must not have: writing, creating, truncating,
// deleting, renaming, linking, changing modes, owners or times, connecting
// or sending to a network socket (netlink requests other than queries
// included), signalling a process outside the command, mounting and the like,
// and executing a program that the analyser does not itself judge read-only
// (a pager, an editor, a shell running something else). Writes are allowed
// only to /dev/null, /dev/tty, pipes and the cache and log directories the
// analysis names (Analysis.CacheWrites).

// dynamicTracer says how to run commands under strace, or why it cannot.
type dynamicTracer struct {
	strace, unshare, setpriv, bash string
	// self is the test binary, the mount helper (privateMountsMain).
	self string
	root bool
}

// newDynamicTracer probes once per test binary (a namespace, a mount and
// a strace of their own); every dynamic check shares the answer.
func newDynamicTracer() (*dynamicTracer, string) {
	dynamicTracerOnce.Do(func() { dynamicTracerShared, dynamicTracerWhy = probeDynamicTracer() })
	return dynamicTracerShared, dynamicTracerWhy
}

var (
	dynamicTracerOnce   sync.Once
	dynamicTracerShared *dynamicTracer
	dynamicTracerWhy    string
)

func probeDynamicTracer() (*dynamicTracer, string) {
	if runtime.GOOS != "linux" {
		return nil, "the dynamic check needs Linux (strace, namespaces)"
	}
	d := &dynamicTracer{root: os.Geteuid() == 0}
	var err error
	if d.strace, err = exec.LookPath("strace"); err != nil {
		return nil, "strace is not installed (apt-get install strace); .ci/run installs it"
	}
	if d.unshare, err = exec.LookPath("unshare"); err != nil {
		return nil, "unshare (util-linux) is not installed"
	}
	if d.bash, err = exec.LookPath("bash"); err != nil {
		return nil, "bash is not installed"
	}
	if d.root {
		if d.setpriv, err = exec.LookPath("setpriv"); err != nil {
			return nil, "running as root and setpriv (util-linux) is not installed to drop to nobody"
		}
	}
	// Namespaces and mounts may be forbidden (containers without user
	// namespaces).
	dir, err := os.MkdirTemp("", "permopa-probe-")
	if err != nil {
		return nil, err.Error()
	}
	defer os.RemoveAll(dir)
	// The same mounts as a traced run (privateMounts), the probe's
	// directory standing for the fixture and the traces.
	self, err := os.Executable()
	if err != nil {
		return nil, "the test binary cannot find itself: " + err.Error()
	}
	d.self = self
	probe := exec.Command(d.unshare, append(d.nsFlags(), "--", d.self, dir, dir,
		d.strace, "-f", "-qq", "-o", "/dev/null", "true")...)
	probe.Dir = dir
	probe.Env = append(os.Environ(), "PWD="+dir, privateMountsEnv+"=1")
	if out, err := probe.CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("unshare/strace do not work here (%v: %s)", err, bytes.TrimSpace(out))
	}
	return d, ""
}

func (d *dynamicTracer) nsFlags() []string {
	// --kill-child: when unshare is killed (the timeout), its child, the
	// namespace's init, dies and takes every process of the namespace with it.
	f := []string{"--net", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child"}
	if !d.root {
		f = append([]string{"--map-root-user"}, f...)
	}
	return f
}

// privateMountsEnv, set in its environment, makes the test binary the
// first process of a traced run's namespaces (TestMain): its arguments
// are the fixture, the trace directory, then the command to execute
// (privateMountsMain). One process does the mounts a shell with a dozen
// mount, umount and mkdir processes did, about 0.1 s of CPU a run.
const privateMountsEnv = "PERMOPA_TEST_PRIVATE_MOUNTS"

// privateMountsMain prepares a traced run's mount namespace (traced), then
// executes the command (args[2:]) with privateMountsEnv removed from its
// environment; it never returns. The directories everyone may write (/tmp,
// /var/tmp, /dev/shm, /run/lock) become empty tmpfs of the namespace, so a
// command that writes or deletes there cannot touch the machine's files or
// another test's fixture; the fixture and the trace directory, which may
// live in /tmp, are carried over through a staging tmpfs on /mnt,
// unmounted again. The fixture is bound read-only; the working directory
// ($PWD) is entered again through that mount.
func privateMountsMain(args []string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "private mounts:", err)
		os.Exit(1)
	}
	if len(args) < 3 {
		fail(fmt.Errorf("want FIXTURE TRACES PROGRAM [ARG...], have %q", args))
	}
	r, tr, argv := args[0], args[1], args[2:]
	mount := func(source, target, fstype string, flags uintptr, data string) {
		if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
			fail(fmt.Errorf("mount %s on %s (%s, %#x, %q): %w", source, target, fstype, flags, data, err))
		}
	}
	mkdir := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fail(err)
		}
	}
	mount("tmpfs", "/mnt", "tmpfs", 0, "")
	mkdir("/mnt/r")
	mkdir("/mnt/t")
	mount(r, "/mnt/r", "", syscall.MS_BIND, "")
	mount(tr, "/mnt/t", "", syscall.MS_BIND, "")
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock"} {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			mount("tmpfs", d, "tmpfs", 0, "mode=1777")
		}
	}
	mkdir(r)
	mkdir(tr)
	mount("/mnt/r", r, "", syscall.MS_BIND, "")
	// A read-only remount keeps the flags the mount has (in a user
	// namespace the locked ones must be kept, or it fails).
	var st syscall.Statfs_t
	if err := syscall.Statfs(r, &st); err != nil {
		fail(err)
	}
	keep := uintptr(0)
	for stFlag, msFlag := range map[int64]uintptr{2: syscall.MS_NOSUID, 4: syscall.MS_NODEV, 8: syscall.MS_NOEXEC,
		1024: syscall.MS_NOATIME, 2048: syscall.MS_NODIRATIME, 4096: syscall.MS_RELATIME} {
		if st.Flags&stFlag != 0 {
			keep |= msFlag
		}
	}
	mount("", r, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY|keep, "")
	mount("/mnt/t", tr, "", syscall.MS_BIND, "")
	for _, m := range []string{"/mnt/r", "/mnt/t", "/mnt"} {
		if err := syscall.Unmount(m, 0); err != nil {
			fail(fmt.Errorf("umount %s: %w", m, err))
		}
	}
	if err := os.Chdir(os.Getenv("PWD")); err != nil {
		fail(err)
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		fail(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, privateMountsEnv+"=") {
			env = append(env, kv)
		}
	}
	fail(syscall.Exec(prog, argv, env))
}

// tracedSyscalls are the system calls whose use can be an effect (plus
// execve, whose programs are judged).
var tracedSyscalls = strings.Join([]string{
	"execve", "execveat",
	"open", "openat", "openat2", "creat", "truncate", "ftruncate",
	"unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "mknod", "mknodat",
	"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
	"link", "linkat", "symlink", "symlinkat", "utime", "utimes", "utimensat", "futimesat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"connect", "sendto", "sendmsg", "sendmmsg", "bind",
	"kill", "tkill", "tgkill",
	"mount", "umount2", "sethostname", "setdomainname", "settimeofday", "clock_settime", "adjtimex",
	"reboot", "init_module", "finit_module", "delete_module", "swapon", "swapoff", "acct", "pivot_root", "chroot",
	"ptrace", "process_vm_writev", "io_uring_setup",
}, ",")

// dynamicResult is what one traced run did.
type dynamicResult struct {
	exit    int
	timeout bool
	effects []string
	output  string
	// execs are the argv of every program the command executed (observe
	// mode only).
	execs [][]string
	// inspected is what the job's inspect found in its trace files.
	inspected []string
	// batched: the result is the command's in its batch (runBatch), not
	// of a run of its own after the batch did not finish it.
	batched bool
}

// dynamicOutputMax is how much of a command's output a traced run keeps.
const dynamicOutputMax = 1 << 16

// run executes cmd with bash in the fixture, which is bind-mounted
// read-only inside the command's mount namespace: a write fails (EROFS)
// and is still seen in the trace, so every command runs on the same,
// unchanged tree without a copy. cache are absolute paths (cache and log
// directories) that may be written; helpers are programs the command may
// execute besides those the analyser judges read-only.
func (d *dynamicTracer) run(t testing.TB, root, cmd string, cache []string, helpers []string, timeout time.Duration) dynamicResult {
	t.Helper()
	return d.runJob(t, root, tracedJob{cmd: cmd, cache: cache, helpers: helpers}, timeout)
}

// runJob is run for one job, with its observe mode and secrets.
func (d *dynamicTracer) runJob(t testing.TB, root string, j tracedJob, timeout time.Duration) dynamicResult {
	t.Helper()
	cmd := j.cmd
	traces, err := os.MkdirTemp("", "permopa-dyn-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(traces)
	var out limitedBuffer
	out.max = dynamicOutputMax
	syscalls := tracedSyscalls
	if j.cacheOwners != nil {
		syscalls += "," + forkSyscalls // which program each process inherits
	}
	exit, timedOut := d.traced(root, traces, []string{d.bash, "-c", cmd}, syscalls, &out, timeout)
	res := dynamicResult{output: out.String(), exit: exit, timeout: timedOut}
	if len(traceFiles(traces)) == 0 {
		// Nothing was traced (the namespace's mounts failed): no effect
		// seen is no proof.
		t.Fatalf("dynamic check: %q left no trace (exit %d): %s", cmd, exit, res.output)
	}
	res.effects, res.execs = traceJobEffects(t, traceFiles(traces), j)
	if j.inspect != nil {
		res.inspected = j.inspect(traceFiles(traces))
	}
	return res
}

// traced runs argv under strace (as nobody when the test runs as root) in
// new namespaces with the fixture at root bind-mounted read-only, its
// trace files st.PID written to traces. It returns the exit code (-1: not
// run) and whether timeout stopped it.
func (d *dynamicTracer) traced(root, traces string, argv []string, syscalls string, out io.Writer, timeout time.Duration) (int, bool) {
	// --seccomp-bpf: only the traced system calls stop the tracee (the
	// same trace, a fraction of the ptrace stops).
	inner := []string{d.strace, "--seccomp-bpf", "-ff", "-qq", "-v", "-yy", "-s", "512", "-e", "signal=none",
		"-e", "trace=" + syscalls, "-o", filepath.Join(traces, "st"), "--"}
	if d.root {
		inner = append(inner, d.setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs", "--")
	}
	inner = append(inner, argv...)
	// The test binary as privateMountsMain: the fixture bound read-only,
	// private temporary directories (find /tmp -delete, run as nobody,
	// cannot touch the machine's files), then strace is executed.
	mountRO := append([]string{d.self, root, traces}, inner...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, d.unshare, append(d.nsFlags(), append([]string{"--"}, mountRO...)...)...)
	home := filepath.Join(root, "home")
	c.Dir = filepath.Join(home, "proj")
	c.Env = []string{
		"HOME=" + home, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"LANG=C.UTF-8", "TERM=dumb", "USER=nobody", "LOGNAME=nobody", "SHELL=/bin/bash",
		"GIT_CONFIG_NOSYSTEM=1", "PWD=" + c.Dir, "TZ=UTC", privateMountsEnv + "=1",
	}
	c.Stdout, c.Stderr = out, out
	// No controlling terminal: /dev/tty cannot be opened.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 2 * time.Second
	err := c.Run()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		exit = -1
	}
	return exit, ctx.Err() != nil
}

// tracedJob is one command of a batch, with what its analysis allows.
type tracedJob struct {
	cmd            string
	cache, helpers []string
	// observe judges what the command did, not what the analyser says of
	// the programs it executed (the ground truth of a corpus, nl2bash_test.go):
	// a program executed is an effect only when it is the fixture's own
	// code (observeExec); its own system calls are traced like any other.
	observe bool
	// secrets are files whose opening for reading is an effect.
	secrets []string
	// cacheOwners, when set, scopes cache to the programs that own it
	// (program name → its cache; cacheOwnersOf): a process may write only
	// the caches of the programs it descends from (what it executed, what
	// its parents had executed when they forked it: info's cache covers the
	// man it runs), so sort's /tmp does not cover tee /tmp/x or a shell
	// redirection in the same pipeline. A process whose programs are not
	// known writes within cache as before.
	cacheOwners map[string][]string
	// inspect, when set, reads the trace files of the command's own
	// processes (pid → file) while they exist (hostileRun's planted
	// script and secret); its findings are the result's inspected.
	inspect func(procs map[int]string) []string
}

// batchEnd ends each command's output in a batch: NUL, the marker, the
// command's index and exit code, NUL. A command's output cannot forge it
// for another command: the index and the order are checked.
const batchEnd = "\x00permopa-dynamic-end "

// forkSyscalls are traced in a batch to tell the commands' processes
// apart: each clone's return value is a child of the caller.
const forkSyscalls = "clone,clone3,fork,vfork"

// runBatch traces several commands in one namespace and one strace (the
// fixed cost of a traced run, a few processes and strace's start, is most
// of a quick command's): a driver shell runs each with bash -c, one after
// the other, each a job of its own (its own process group) under one
// watchdog for the whole batch, and each command's effects are read from
// its own processes only, the bash -c and every process it forked (found
// from the clone calls), judged with its own cache directories and
// helpers exactly as run does. A command the batch did not finish (no end
// marker: the batch's own deadline) is traced again on its own.
func (d *dynamicTracer) runBatch(t testing.TB, root string, jobs []tracedJob, timeout time.Duration) []dynamicResult {
	t.Helper()
	traces, err := os.MkdirTemp("", "permopa-dyn-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(traces)
	secs := strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)
	// Positional parameters: $1 the deadline in seconds, $2 bash, then the
	// commands. The watchdog is a coprocess of builtins only (no process
	// per command; a timeout(1) around each cost some 17 ms of CPU): told
	// a command's pid, it waits for "done" until the deadline, then
	// signals the command's process group (set -m: each command is a job
	// of its own) TERM, KILL a second later, and answers ok, term or kill.
	// The commands keep the driver's standard error (fd 3); the driver's
	// own job messages go to /dev/null; the watchdog's pipes are closed
	// in the commands.
	driver := `s=$1 b=$2; shift 2; i=0
exec 3>&2 2>/dev/null
coproc W { while read -r p; do if read -r -t "$s" x; then echo ok; else kill -TERM -- "-$p"; if read -r -t 1 x; then echo term; else kill -KILL -- "-$p"; read -r x; echo kill; fi; fi; done; }
w0=${W[0]} w1=${W[1]}
set -m
for c in "$@"; do
	"$b" -c "$c" 2>&3 3>&- {w0}<&- {w1}>&- & p=$!
	echo "$p" >&"$w1"; wait "$p"; r=$?; echo done >&"$w1"; read -r v <&"$w0"
	printf '\0permopa-dynamic-end %d %d %s\0' "$i" "$r" "$v"; i=$((i+1))
done`
	argv := []string{d.bash, "--norc", "--noprofile", "-c", driver, "driver", secs, d.bash}
	for _, j := range jobs {
		argv = append(argv, j.cmd)
	}
	var out limitedBuffer
	out.max = len(jobs) * (dynamicOutputMax + 64)
	d.traced(root, traces, argv, tracedSyscalls+","+forkSyscalls, &out, time.Duration(len(jobs))*(timeout+2*time.Second)+10*time.Second)

	results := make([]dynamicResult, len(jobs))
	done := make([]bool, len(jobs))
	rest := out.String()
	for i := range jobs {
		k := strings.Index(rest, batchEnd)
		if k < 0 {
			break
		}
		tail := rest[k+len(batchEnd):]
		e := strings.IndexByte(tail, 0)
		var idx, exit int
		var watchdog string
		if e < 0 {
			break
		}
		if _, err := fmt.Sscanf(tail[:e], "%d %d %s", &idx, &exit, &watchdog); err != nil || idx != i ||
			watchdog != "ok" && watchdog != "term" && watchdog != "kill" {
			break
		}
		results[i].output = rest[:min(k, dynamicOutputMax)]
		results[i].exit = exit
		results[i].timeout = watchdog != "ok"
		results[i].batched = true
		done[i] = true
		rest = tail[e+1:]
	}

	// The process tree: each file's clone calls name its children, in
	// order. The driver is strace's first tracee (the lowest pid); its
	// first child is the watchdog, which executes nothing, and the others
	// are the commands' bash -c, one per command in order.
	files := traceFiles(traces)
	children := map[int][]int{}
	execs := map[int][][]string{} // the programs each process executed, in order
	driverPid := -1
	for pid, f := range files {
		if driverPid < 0 || pid < driverPid {
			driverPid = pid
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			m := straceLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			switch m[1] {
			case "clone", "clone3", "fork", "vfork":
				if child, err := strconv.Atoi(m[3]); err == nil && child > 0 {
					children[pid] = append(children[pid], child)
				}
			case "execve":
				if m[3] == "0" {
					execs[pid] = append(execs[pid], execArgv(m[2]))
				}
			}
		}
	}
	if e := execs[driverPid]; len(e) == 0 || len(e[len(e)-1]) < 5 || e[len(e)-1][4] != driver {
		t.Fatalf("dynamic batch: the first traced process is not the driver: %q", e)
	}
	if kids := children[driverPid]; len(kids) == 0 || len(execs[kids[0]]) > 0 {
		t.Fatalf("dynamic batch: the driver's first child is not the watchdog: %v", kids)
	}
	rootOf := func(i int) int {
		kids := children[driverPid]
		if i+1 >= len(kids) {
			return -1
		}
		if e := execs[kids[i+1]]; len(e) == 0 || len(e[0]) != 3 || filepath.Base(e[0][0]) != "bash" || e[0][1] != "-c" || e[0][2] != jobs[i].cmd {
			return -1
		}
		return kids[i+1]
	}
	for i, j := range jobs {
		if !done[i] {
			results[i] = d.runJob(t, root, j, timeout)
			continue
		}
		pid := rootOf(i)
		if pid < 0 {
			t.Errorf("dynamic batch: command %d is not the bash -c of the driver's child %d: %q", i, i+1, j.cmd)
			continue
		}
		own := map[int]string{}
		for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
			p := queue[0]
			if _, seen := own[p]; seen {
				continue
			}
			own[p] = files[p]
			queue = append(queue, children[p]...)
		}
		results[i].effects, results[i].execs = traceJobEffects(t, own, j)
		if j.inspect != nil {
			results[i].inspected = j.inspect(own)
		}
	}
	return results
}

// traceFiles maps each traced process to its trace file (st.PID).
func traceFiles(dir string) map[int]string {
	files, _ := filepath.Glob(filepath.Join(dir, "st.*"))
	out := map[int]string{}
	for _, f := range files {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Ext(f), ".")); err == nil {
			out[n] = f
		}
	}
	return out
}

type limitedBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

var (
	straceLine   = regexp.MustCompile(`^([a-z0-9_]+)\((.*)\)\s+= (-?\d+|\?|0x[0-9a-f]+)(.*)$`)
	straceString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"(\.\.\.)?`)
	fdDecor      = regexp.MustCompile(`(?:AT_FDCWD|-?\d+)<([^>]*)>`)
	nlType       = regexp.MustCompile(`nlmsg_type=([A-Za-z0-9_]+|0x[0-9a-f]+)`)
	sockFamily   = regexp.MustCompile(`sa_family=(AF_[A-Z0-9]+)`)
	sunPath      = regexp.MustCompile(`sun_path=@?"((?:[^"\\]|\\.)*)"`)
	openFlags    = regexp.MustCompile(`\b(O_[A-Z_|]+)`)
)

// traceEffects reads the strace files of a command's processes (pid →
// file) and lists the effects.
func traceEffects(t testing.TB, procs map[int]string, cmd string, allowed []string, helpers []string) []string {
	effects, _ := traceJobEffects(t, procs, tracedJob{cmd: cmd, cache: allowed, helpers: helpers})
	return effects
}

// traceJobEffects is traceEffects for a job: in observe mode it also
// returns the argv of every program executed.
func traceJobEffects(t testing.TB, procs map[int]string, j tracedJob) ([]string, [][]string) {
	cmd, helpers := j.cmd, j.helpers
	var execs [][]string
	pids := map[int]bool{}
	var order []int
	for pid := range procs {
		pids[pid] = true
		order = append(order, pid)
	}
	// In the trace's own pid namespace a child's pid follows its parent's.
	sort.Ints(order)
	// inherited are the programs each process descends from when it
	// starts: its parent's at the fork (cacheOwners).
	inherited := map[int][]string{}
	if j.cacheOwners != nil {
		for _, pid := range order {
			b, err := os.ReadFile(procs[pid])
			if err != nil {
				t.Fatal(err)
			}
			progs, script := inherited[pid], ""
			for _, line := range strings.Split(string(b), "\n") {
				m := straceLine.FindStringSubmatch(line)
				if m == nil || m[3] == "?" || strings.HasPrefix(m[3], "-") {
					continue
				}
				switch m[1] {
				case "execve", "execveat":
					progs, script = runningPrograms(progs, script, m[2])
				case "clone", "clone3", "fork", "vfork":
					if child, err := strconv.Atoi(m[3]); err == nil && child > 0 {
						inherited[child] = progs
					}
				}
			}
		}
	}
	var effects []string
	add := func(format string, args ...any) {
		e := fmt.Sprintf(format, args...)
		for _, x := range effects {
			if x == e {
				return
			}
		}
		effects = append(effects, e)
	}
	var progs []string
	script := ""
	// allowed is the cache the current process may write.
	allowed := func() []string {
		if j.cacheOwners == nil || len(progs) == 0 {
			return j.cache
		}
		var out []string
		for _, p := range progs {
			out = append(out, j.cacheOwners[p]...)
		}
		return out
	}
	writable := func(p string) bool {
		p = filepath.Clean(p)
		switch {
		case p == "/dev/null" || p == "/dev/tty" || p == "/dev/stdout" || p == "/dev/stderr" ||
			strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") ||
			strings.HasPrefix(p, "pipe:[") || strings.HasPrefix(p, "/dev/pts/"):
			return true
		}
		for _, a := range allowed() {
			if p == a || strings.HasPrefix(p, a+"/") {
				return true
			}
		}
		return false
	}
	// A missing parent of an allowed directory may be created.
	ancestor := func(p string) bool {
		p = filepath.Clean(p)
		for _, a := range allowed() {
			if strings.HasPrefix(a, p+"/") {
				return true
			}
		}
		return false
	}
	for _, pid := range order {
		b, err := os.ReadFile(procs[pid])
		if err != nil {
			t.Fatal(err)
		}
		first := true
		lastExec := ""
		progs, script = inherited[pid], ""
		for _, line := range strings.Split(string(b), "\n") {
			m := straceLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			name, args, ret := m[1], m[2], m[3]
			ok := ret != "?" && !strings.HasPrefix(ret, "-")
			switch name {
			case "execve", "execveat":
				if !ok {
					continue
				}
				progs, script = runningPrograms(progs, script, args)
				argv := execArgv(args)
				if len(argv) == 0 {
					add("exec of an unreadable argv: %s", line)
					continue
				}
				base := filepath.Base(argv[0])
				path := ""
				if ps := straceString.FindStringSubmatch(args); ps != nil {
					path = unescapeC(ps[1])
				}
				prev := lastExec
				lastExec = path
				if first && base == "setpriv" {
					continue
				}
				if base == "bash" && len(argv) == 3 && argv[1] == "-c" && argv[2] == cmd {
					first = false
					continue
				}
				first = false
				// The interpreter of a script just executed (#!/usr/bin/env
				// node runs node /usr/bin/npm): the script was judged.
				if len(argv) > 1 && prev != "" && argv[1] == prev {
					continue
				}
				if j.observe {
					execs = append(execs, argv)
					if why := observeExec(path, argv); why != "" {
						add("%s: %s", why, strings.Join(argv, " "))
					}
					continue
				}
				words := append([]string{base}, argv[1:]...)
				if base == "xargs" {
					// xargs alone cannot tell where its input comes from
					// (find -print0 | xargs -0 is judged as a whole); what
					// it does is what it executes, each exec traced and
					// judged here with its real operands.
					continue
				}
				if isHelper(words, helpers) {
					continue
				}
				// git runs its scripted subcommands as git-NAME from its
				// exec path: judge them as git NAME.
				if sub, ok := strings.CutPrefix(base, "git-"); ok && flagspec.HasSubcommands("git") {
					words = append([]string{"git", sub}, argv[1:]...)
				}
				if isHelper(words, helpers) {
					continue
				}
				if why := execNotReadOnly(words); why != "" {
					add("executes %s (not read-only: %s)", strings.Join(argv, " "), why)
				}
			case "open", "openat", "openat2", "creat":
				fl := ""
				if fm := openFlags.FindStringSubmatch(args); fm != nil {
					fl = fm[1]
				}
				if name != "creat" && !strings.Contains(fl, "O_WRONLY") && !strings.Contains(fl, "O_RDWR") &&
					!strings.Contains(fl, "O_CREAT") && !strings.Contains(fl, "O_TRUNC") {
					if ok && len(j.secrets) > 0 {
						for _, p := range syscallPaths(args, 1) {
							for _, sec := range j.secrets {
								if filepath.Clean(p) == sec {
									add("reads the secret %s", sec)
								}
							}
						}
					}
					continue
				}
				if strings.Contains(fl, "O_TMPFILE") {
					// An unnamed file that disappears when closed; giving it
					// a name takes linkat, which is reported.
					continue
				}
				for _, p := range syscallPaths(args, 1) {
					if !writable(p) {
						add("%s %s %s (%s)", name, p, fl, retText(ok, m[4], ret))
					}
				}
			case "mkdir", "mkdirat":
				for _, p := range syscallPaths(args, 1) {
					if !writable(p) && !ancestor(p) {
						add("%s %s (%s)", name, p, retText(ok, m[4], ret))
					}
				}
			case "unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "mknod", "mknodat",
				"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "link", "linkat",
				"symlink", "symlinkat", "utime", "utimes", "utimensat", "futimesat", "truncate", "ftruncate",
				"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr":
				ps := syscallPaths(args, 2)
				if len(ps) == 0 {
					add("%s on an unknown file (%s)", name, retText(ok, m[4], ret))
				}
				for _, p := range ps {
					if !writable(p) {
						add("%s %s (%s)", name, p, retText(ok, m[4], ret))
					}
				}
			case "clone", "clone3", "fork", "vfork":
				// Traced in a batch only, to find a command's processes.
				continue
			case "connect", "sendto", "sendmsg", "sendmmsg", "bind":
				if e := socketEffect(name, args); e != "" {
					add("%s %s (%s)", name, e, retText(ok, m[4], ret))
				}
			case "kill", "tkill", "tgkill":
				fs := strings.Split(args, ", ")
				if len(fs) < 2 {
					continue
				}
				target, err := strconv.Atoi(fs[0])
				if name == "tgkill" {
					target, err = strconv.Atoi(fs[1])
				}
				if err != nil {
					add("%s %s (%s)", name, args, retText(ok, m[4], ret))
					continue
				}
				sig := fs[len(fs)-1]
				// Signal 0 only probes; pid 0 is the caller's own process
				// group (timeout signals its child that way).
				if sig == "0" || target == 0 || pids[target] {
					continue
				}
				add("%s %s (%s)", name, args, retText(ok, m[4], ret))
			default:
				add("%s(%s) (%s)", name, args, retText(ok, m[4], ret))
			}
		}
	}
	sort.Strings(effects)
	return effects, execs
}

// runningPrograms are the programs a process descends from after a
// successful execve with args, given those before (progs) and the path it
// executed last (script): progs and the base name of the new program (git
// for git's git-NAME; nothing new for the interpreter a script's #! line
// runs, whose argv[1] is the script just executed).
func runningPrograms(progs []string, script, args string) ([]string, string) {
	argv := execArgv(args)
	path := ""
	if ps := straceString.FindStringSubmatch(args); ps != nil {
		path = unescapeC(ps[1])
	}
	if len(argv) == 0 || len(argv) > 1 && script != "" && argv[1] == script {
		return progs, path
	}
	base := filepath.Base(argv[0])
	if strings.HasPrefix(base, "git-") {
		base = "git"
	}
	return append(progs[:len(progs):len(progs)], base), path
}

// cacheOwnersOf maps each program of a's leaves to the cache it may write
// (tracedJob.cacheOwners).
func cacheOwnersOf(a *Analysis) map[string][]string {
	out := map[string][]string{}
	for _, l := range a.Leaves {
		base := filepath.Base(l.Program)
		out[base] = append(out[base], l.CacheWrites...)
	}
	return out
}

func retText(ok bool, rest, ret string) string {
	if ok {
		return "succeeded"
	}
	return "attempted:" + strings.TrimSpace(rest)
}

// execArgv returns the argv array of an execve line: the C strings of the
// second argument, up to the "]" that closes it outside any string.
func execArgv(args string) []string {
	i := strings.Index(args, ", [")
	if i < 0 {
		return nil
	}
	rest := args[i+3:]
	var argv []string
	for {
		loc := straceString.FindStringSubmatchIndex(rest)
		if loc == nil || strings.TrimSpace(rest[:loc[0]]) != "" {
			return argv
		}
		argv = append(argv, unescapeC(rest[loc[2]:loc[3]]))
		rest = rest[loc[1]:]
		if !strings.HasPrefix(rest, ", ") {
			return argv // "]" closes the array
		}
		rest = rest[2:]
	}
}

// syscallPaths returns the file paths of a file system call: its string
// arguments, resolved against the directory decoration of the fd before
// each (AT_FDCWD</dir>, 3</dir>), or the fd's own path when the call names
// no string (fchmod(3</f>)). At most n strings are taken.
func syscallPaths(args string, n int) []string {
	var out []string
	strs := straceString.FindAllStringSubmatchIndex(args, -1)
	if len(strs) == 0 {
		for _, m := range fdDecor.FindAllStringSubmatch(args, 1) {
			out = append(out, m[1])
		}
		return out
	}
	for k, s := range strs {
		if k >= n {
			break
		}
		p := unescapeC(args[s[2]:s[3]])
		if !filepath.IsAbs(p) {
			dir := ""
			for _, m := range fdDecor.FindAllStringSubmatchIndex(args[:s[0]], -1) {
				dir = args[m[2]:m[3]]
			}
			if dir == "" {
				out = append(out, "(relative) "+p)
				continue
			}
			p = filepath.Join(dir, p)
		}
		out = append(out, p)
	}
	return out
}

// ipcPrefix marks a reported connection to a local daemon's socket (not an effect).
const ipcPrefix = "ipc "

// socketEffect says why a socket call is an effect, "" when it is not:
// local IPC over AF_UNIX, and netlink queries (RTM_GET*, sock_diag).
func socketEffect(name, args string) string {
	fd := ""
	if m := fdDecor.FindStringSubmatch(args); m != nil {
		fd = m[1]
	}
	fam := ""
	if m := sockFamily.FindStringSubmatch(args); m != nil {
		fam = m[1]
	}
	switch {
	case strings.HasPrefix(fd, "NETLINK:[SOCK_DIAG"):
		// Socket diagnostics only read, except SOCK_DESTROY (ss -K).
		if strings.Contains(args, "SOCK_DESTROY") {
			return "netlink SOCK_DESTROY"
		}
		return ""
	case strings.HasPrefix(fd, "NETLINK") || fam == "AF_NETLINK":
		if name == "bind" || name == "connect" {
			return ""
		}
		types := nlType.FindAllStringSubmatch(args, -1)
		if len(types) == 0 {
			return "netlink message of an unknown type: " + abbrev(args)
		}
		for _, ty := range types {
			v := ty[1]
			if strings.Contains(v, "_GET") || v == "SOCK_DIAG_BY_FAMILY" || v == "NLMSG_DONE" || v == "NLMSG_NOOP" ||
				v == "0" /* an empty trailing message */ || v == "nlctrl" || v == "0x10" /* GENL_ID_CTRL */ {
				continue
			}
			// iproute2 probes for RTM_NEWLINK support with an empty
			// request (no interface, no attributes), which changes nothing.
			if v == "RTM_NEWLINK" && strings.Contains(args, "nlmsg_len=32,") && strings.Contains(args, "ifi_index=0,") &&
				strings.Contains(args, "ifi_change=0}") {
				continue
			}
			return "netlink " + v
		}
		return ""
	case strings.HasPrefix(fd, "UNIX") || fam == "AF_UNIX":
		if m := sunPath.FindStringSubmatch(args); m != nil && name == "bind" && !strings.Contains(args, `sun_path=@`) {
			return "binds the unix socket " + unescapeC(m[1])
		}
		if m := sunPath.FindStringSubmatch(args); m != nil && name == "connect" {
			// Local IPC (name service, journal, a daemon): reported, not an
			// effect by itself; what the daemon does is the program's verdict.
			return ipcPrefix + unescapeC(m[1])
		}
		return ""
	case fam == "AF_INET" || fam == "AF_INET6" || strings.HasPrefix(fd, "TCP") || strings.HasPrefix(fd, "UDP"):
		if name == "bind" {
			return ""
		}
		return "network " + abbrev(args)
	case fam == "":
		if name == "sendto" || name == "sendmsg" || name == "sendmmsg" {
			if fd == "" || strings.HasPrefix(fd, "pipe:") || strings.HasPrefix(fd, "/") {
				return ""
			}
		}
		return "socket " + abbrev(args)
	}
	return "socket " + abbrev(args)
}

func abbrev(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// unescapeC decodes strace's C string escapes.
func unescapeC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'x':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteByte('x')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// buildFixture writes the fixture tree under root: root/home (HOME, with
// fake credentials) and root/home/proj (the project, a git repository with
// history, archives, certificates, data files). Optional tools (git, bzip2,
// xz, zstd, lz4) are used when installed; a missing one leaves its files out.
func buildFixture(t testing.TB, root string) {
	t.Helper()
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, "proj")
	write := func(rel, content string, mode os.FileMode) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	notes := "first line\nTODO: second line\nthird line\nfoo bar baz\n"
	files := map[string]string{
		// Fake credentials: what a read-only command must never change.
		"home/.ssh/id_rsa":           "-----BEGIN OPENSSH PRIVATE KEY-----\nZmFrZSBrZXkgZm9yIHRlc3Rz\n-----END OPENSSH PRIVATE KEY-----\n",
		"home/.ssh/id_rsa.pub":       "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFakeFakeFakeFakeFakeFakeFakeFake alice@example\n",
		"home/.ssh/known_hosts":      "example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFakeFakeFakeFakeFakeFakeFakeFake\n",
		"home/.ssh/config":           "Host example\n  HostName example.com\n",
		"home/.aws/credentials":      "[default]\naws_access_key_id = AKIAFAKEFAKEFAKE\naws_secret_access_key = fakefakefake\n",
		"home/.netrc":                "machine example.com login alice password fake\n",
		"home/.npmrc":                "//registry.npmjs.org/:_authToken=npm_fake\n",
		"home/.gitconfig":            "[user]\n\tname = Alice\n\temail = alice@example.com\n[init]\n\tdefaultBranch = main\n",
		"home/.bashrc":               "# fixture\n",
		"home/.docker/config.json":   `{"auths":{"example.com":{"auth":"ZmFrZTpmYWtl"}}}` + "\n",
		"home/.kube/config":          "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:6443\n  name: c\ncontexts:\n- context:\n    cluster: c\n    user: u\n    namespace: default\n  name: c\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: fake\n",
		"home/proj/.env":             "API_KEY=fake-secret\n",
		"home/proj/notes.txt":        notes,
		"home/proj/other.txt":        "alpha\nbeta\nTODO gamma\n",
		"home/proj/README.md":        "# proj\n\nA fixture project.\n",
		"home/proj/app.log":          "2024-01-01 INFO start\n2024-01-01 ERROR boom\n",
		"home/proj/data.json":        `{"name":"proj","items":[{"id":1,"tags":["a"]},{"id":2,"tags":["b"]}]}` + "\n",
		"home/proj/other.json":       `{"name":"other"}` + "\n",
		"home/proj/config.yaml":      "name: proj\nitems:\n  - a\n  - b\n",
		"home/proj/other.yaml":       "name: other\n",
		"home/proj/data.csv":         "id,name\n1,a\n2,b\n",
		"home/proj/data.xml":         "<root><item>a</item></root>\n",
		"home/proj/index.html":       "<html><body>hi</body></html>\n",
		"home/proj/index.js":         "console.log('hi')\n",
		"home/proj/app.py":           "print('hi')\n",
		"home/proj/main.go":          "package main\n\nfunc main() {}\n",
		"home/proj/go.mod":           "module example.com/proj\n\ngo 1.21\n",
		"home/proj/main.c":           "int main(void) { return 0; }\n",
		"home/proj/package.json":     `{"name":"proj","version":"1.0.0","scripts":{"build":"echo build"}}` + "\n",
		"home/proj/requirements.txt": "requests==2.0\n",
		"home/proj/Makefile":         "all:\n\techo all\n",
		"home/proj/Dockerfile":       "FROM scratch\n",
		"home/proj/src/lib.go":       "package src\n\n// TODO: more\n",
		"home/proj/src/util.py":      "x = 1\n",
		"home/proj/docs/guide.md":    "# guide\n",
		"home/proj/.gitignore":       "*.log\nout/\n",
		"home/proj/patch.diff":       "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-first line\n+first line changed\n TODO: second line\n",
	}
	for rel, content := range files {
		mode := os.FileMode(0o644)
		if strings.Contains(rel, ".ssh/id_rsa") && !strings.HasSuffix(rel, ".pub") || strings.Contains(rel, "credentials") {
			mode = 0o600
		}
		write(rel, content, mode)
	}
	write("home/proj/script.sh", "#!/bin/sh\necho hi\n", 0o755)
	for ext, sum := range map[string]func([]byte) []byte{
		".md5":    nil,
		".sha1":   func(b []byte) []byte { s := sha1.Sum(b); return s[:] },
		".sha256": func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
		".sha512": func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
	} {
		if sum == nil {
			continue
		}
		write("home/proj/notes.txt"+ext, hex.EncodeToString(sum([]byte(notes)))+"  notes.txt\n", 0o644)
	}
	if err := os.Symlink("notes.txt", filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("/bin/true"); err == nil {
		write("home/proj/bin/app", string(b), 0o755)
	}
	// Archives.
	tarball := func(gz bool) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, f := range []string{"notes.txt", "other.txt"} {
			body := files["home/proj/"+f]
			tw.WriteHeader(&tar.Header{Name: "a/" + f, Mode: 0o644, Size: int64(len(body)), ModTime: time.Unix(1700000000, 0)})
			tw.Write([]byte(body))
		}
		tw.Close()
		if !gz {
			return buf.Bytes()
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(buf.Bytes())
		zw.Close()
		return z.Bytes()
	}
	write("home/proj/a.tar", string(tarball(false)), 0o644)
	write("home/proj/a.tar.gz", string(tarball(true)), 0o644)
	write("home/proj/a.tgz", string(tarball(true)), 0o644)
	for _, name := range []string{"a.zip", "b.zip"} {
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		for _, f := range []string{"notes.txt", "other.txt"} {
			w, _ := zw.Create("a/" + f)
			w.Write([]byte(files["home/proj/"+f]))
		}
		zw.Close()
		write("home/proj/"+name, zb.String(), 0o644)
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Name = "notes.txt"
	gw.Write([]byte(notes))
	gw.Close()
	write("home/proj/f.gz", gz.String(), 0o644)
	for _, c := range []struct{ tool, ext string }{{"bzip2", "bz2"}, {"xz", "xz"}, {"zstd", "zst"}, {"lz4", "lz4"}} {
		if _, err := exec.LookPath(c.tool); err != nil {
			continue
		}
		for _, in := range []struct{ name, data string }{{"f." + c.ext, notes}, {"a.tar." + c.ext, string(tarball(false))}} {
			cmd := exec.Command(c.tool, "-c")
			cmd.Stdin = strings.NewReader(in.data)
			if b, err := cmd.Output(); err == nil {
				write("home/proj/"+in.name, string(b), 0o644)
			}
		}
	}
	// A certificate, its key and a request.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example.com"},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(2000000000, 0), DNSNames: []string{"example.com"}}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	write("home/proj/cert.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), 0o644)
	write("home/proj/cert.der", string(der), 0o644)
	kb, _ := x509.MarshalPKCS8PrivateKey(key)
	write("home/proj/key.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb})), 0o600)
	csr, _ := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "example.com"}}, key)
	write("home/proj/req.csr", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: csr})), 0o644)
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var pb bytes.Buffer
	png.Encode(&pb, img)
	write("home/proj/image.png", pb.String(), 0o644)
	// The git history: two commits on main, a branch, a tag, a remote.
	if gitPath, err := exec.LookPath("git"); err == nil {
		env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
		for _, args := range [][]string{
			{"init", "-q", "-b", "main"},
			{"add", "notes.txt", "other.txt", "README.md", "src", "docs", "main.go", "go.mod", "package.json"},
			{"commit", "-q", "-m", "first"},
			{"tag", "v1.0"},
			{"branch", "feature"},
			{"add", "data.json", "config.yaml"},
			{"commit", "-q", "-m", "second"},
			{"remote", "add", "origin", "https://example.com/repo.git"},
		} {
			c := exec.Command(gitPath, args...)
			c.Dir, c.Env = proj, env
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		// A change in the work tree, for git diff and git status.
		write("home/proj/notes.txt", notes+"fifth line\n", 0o644)
	}
}

// fixtureTemplate builds the fixture once per test binary, owned by nobody
// when the tracer drops to it. d is nil for the tests that only analyse in
// it (TestRealWorldRecall): the tree is the same (fixtureForNobody).
var (
	fixtureOnce sync.Once
	fixtureDir  string
)

func fixtureTemplate(t testing.TB, d *dynamicTracer) string {
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "permopa-fixture-")
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		buildFixture(t, dir)
		if fixtureForNobody(d) {
			if out, err := exec.Command("chown", "-R", "65534:65534", dir).CombinedOutput(); err != nil {
				t.Fatalf("chown fixture: %v %s", err, out)
			}
		}
		fixtureDir = dir
	})
	return fixtureDir
}

// fixtureForNobody reports whether a fixture is handed to nobody: the
// tracer drops to nobody when the tests run as root. A test that only
// analyses (d nil) may build the fixture first for the traced tests of the
// same binary, so it decides the same way.
func fixtureForNobody(d *dynamicTracer) bool {
	if d != nil {
		return d.root
	}
	return os.Geteuid() == 0
}

// dynamicHelpers are programs a read-only program runs as a fixed part of
// its own work, keyed by that program, as argv prefixes: man's formatting
// pipeline, and git's transport helpers for a network read of a configured
// remote (git remote show, git ls-remote). Anything else a command executes
// must be judged read-only by the analyser on its own argv.
var dynamicHelpers = map[string][]string{
	"man": {"preconv", "tbl", "eqn", "pic", "refer", "grap", "vgrind", "nroff", "groff", "troff", "grotty",
		"col", "zsoelim", "manconv", "gtbl", "geqn", "gpic", "soelim"},
	"git": {"git remote-https", "git remote-http", "git remote-ftp", "git remote-ftps", "git-remote-https",
		"git-remote-http", "git-remote-ftp", "git-remote-ftps", "git-upload-pack", "sh -c git-upload-pack", "ssh",
		"git bisect--helper log", "git submodule--helper status"},
	// info prints a manual page through man -a when no Info node has the
	// name (the man it runs is judged on its own argv); man's pipeline.
	"info": {"preconv", "tbl", "eqn", "pic", "refer", "grap", "vgrind", "nroff", "groff", "troff", "grotty",
		"col", "zsoelim", "manconv", "gtbl", "geqn", "gpic", "soelim"},
	// Python's yq is a jq wrapper: it runs jq with the command's own filter
	// and options, which the yq spec judged.
	"yq": {"jq"},
	// zless and zmore set LESSOPEN to gzip -cdfq -- %s, which less runs
	// through the shell named by SHELL.
	"zless": {`sh -c /bin/bash -c gzip\ -cdfq\ --\`, `sh -c /bin/sh -c gzip\ -cdfq\ --\`, "sh -c gzip -cdfq --"},
	"zmore": {`sh -c /bin/bash -c gzip\ -cdfq\ --\`, `sh -c /bin/sh -c gzip\ -cdfq\ --\`, "sh -c gzip -cdfq --"},
}

// helpersFor returns the helpers allowed for the leaves of a.
func helpersFor(a *Analysis) []string {
	var out []string
	for _, l := range a.Leaves {
		out = append(out, dynamicHelpers[filepath.Base(l.Program)]...)
	}
	return out
}

// isHelper reports whether argv starts with one of the helper prefixes.
func isHelper(argv []string, helpers []string) bool {
	joined := strings.Join(argv, " ") + " "
	for _, h := range helpers {
		if strings.HasPrefix(joined, h+" ") {
			return true
		}
	}
	return false
}

// dynamicTimeout bounds one traced command; commands that follow files or
// loop (tail -f, watch) are stopped there and judged on what they did so far.
const dynamicTimeout = 4 * time.Second

// dynamicBatch is how many commands one traced run holds (runBatch). A
// run's namespace, mounts and strace cost about 0.2 s of CPU, as much as
// four quick commands traced (timeout, bash -c and the program, some
// 50 ms): 24 a run spend a third of what 8 did on them.
const dynamicBatch = 24

// TestDynamicReadOnly runs every command of the real-world corpus and of the
// analyser's read-only tables that the analyser judges read-only under
// strace in a throwaway fixture, and fails on any effect. Set
// PERMOPA_DYNAMIC_ALL=FILE to trace every corpus command, judged read-only
// or not, and write what each did to FILE (the corpus is labelled from it).
func TestDynamicReadOnly(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	template := fixtureTemplate(t, d)
	type job struct{ cmd, label, source string }
	var jobs []job
	all := os.Getenv("PERMOPA_DYNAMIC_ALL")
	only := os.Getenv("PERMOPA_DYNAMIC_ONLY")
	full := all != "" || only != "" || os.Getenv("PERMOPA_DYNAMIC_FULL") != ""
	seen := map[string]bool{}
	// By default two commands per shape (the program, and its subcommand
	// for programs that have them) keep the run to a few minutes on a busy
	// machine; PERMOPA_DYNAMIC_FULL=1 traces every one.
	shapes := map[string]int{}
	opts := realWorldOpts(template)
	for _, r := range loadRealWorld(t) {
		if only != "" && !strings.Contains(r.cmd, only) {
			continue
		}
		if all == "" && !analyze(r.cmd, opts).ReadOnly {
			continue
		}
		if seen[r.cmd] {
			continue
		}
		if !full {
			shape := commandShape(r.cmd)
			if shapes[shape] >= 2 {
				continue
			}
			shapes[shape]++
		}
		seen[r.cmd] = true
		jobs = append(jobs, job{r.cmd, r.label, r.source})
	}
	if all == "" {
		for _, c := range dynamicExtra {
			if !analyze(c, opts).ReadOnly {
				t.Errorf("dynamicExtra: %q is not judged read-only: the check would not trace it", c)
			}
			if !seen[c] && analyze(c, opts).ReadOnly {
				seen[c] = true
				jobs = append(jobs, job{c, "readonly", "dynamicExtra"})
			}
		}
	}
	if testing.Short() && len(jobs) > 150 {
		jobs = jobs[:150]
	}
	// Without -tags slow, one command of each mechanism the check
	// judges by: the first of the corpus, the first of dynamicExtra, the
	// first that writes a cache, the first that runs a helper and the
	// first network read (quickFirst); .ci/run traces them all
	// (docs/development.md).
	if !slowTests && !full {
		var sampled []job
		quick := quickFirst{}
		for _, j := range jobs {
			if dynamicExtraSlow[j.cmd] {
				continue
			}
			a := analyze(j.cmd, opts)
			kind := "corpus"
			if j.source == "dynamicExtra" {
				kind = j.source
			}
			take := quick.take(kind)
			for kind, has := range map[string]bool{"cache": len(a.CacheWrites) > 0, "helpers": len(helpersFor(a)) > 0, "network": a.NetworkRead} {
				take = has && quick.take(kind) || take
			}
			if take {
				sampled = append(sampled, j)
			}
		}
		jobs = sampled
		if testing.Verbose() {
			t.Logf("quick sample: %d commands: %q", len(jobs), jobs)
		}
	}
	type result struct {
		job
		ro, net bool
		res     dynamicResult
	}
	results := make([]result, len(jobs))
	workers := 4
	var wg sync.WaitGroup
	next := make(chan int)
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range next {
				batch := make([]tracedJob, 0, dynamicBatch)
				for i := first; i < min(first+dynamicBatch, len(jobs)); i++ {
					j := jobs[i]
					a := analyze(j.cmd, opts)
					results[i] = result{job: j, ro: a.ReadOnly, net: a.NetworkRead}
					batch = append(batch, tracedJob{cmd: j.cmd, cache: a.CacheWrites, cacheOwners: cacheOwnersOf(a), helpers: helpersFor(a)})
				}
				for k, res := range d.runBatch(t, template, batch, dynamicTimeout) {
					results[first+k].res = res
				}
			}
		}()
	}
	for i := 0; i < len(jobs); i += dynamicBatch {
		next <- i
	}
	close(next)
	wg.Wait()
	t.Logf("traced %d commands in %s with %d workers, %d a batch", len(jobs), time.Since(start).Round(time.Millisecond), workers, dynamicBatch)
	var report strings.Builder
	for _, r := range results {
		if all != "" {
			fmt.Fprintf(&report, "%s\t%s\t%v\t%d\t%v\t%s\t%s\n", r.cmd, r.label, r.ro, r.res.exit, r.res.timeout,
				strings.Join(r.res.effects, " | "), strings.ReplaceAll(strings.ReplaceAll(abbrev(r.res.output), "\n", "⏎"), "\t", " "))
		}
		var bad []string
		for _, e := range r.res.effects {
			// A network read talks to its configured service (here: fails
			// to, there is no network); local IPC is reported only.
			if strings.Contains(e, " "+ipcPrefix) || r.net && strings.Contains(e, " network ") {
				continue
			}
			bad = append(bad, e)
		}
		if r.ro && len(bad) > 0 {
			t.Errorf("judged read-only but has effects (%s): %q\n\t%s", r.source, r.cmd, strings.Join(bad, "\n\t"))
		}
	}
	if all != "" {
		if err := os.WriteFile(all, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyFixture fills root with a copy of the shared fixture (fixtureTemplate):
// the same tree as buildFixture, without its dozens of processes (git,
// compressors) once more for every test that plants files in its own.
func copyFixture(t testing.TB, d *dynamicTracer, root string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", fixtureTemplate(t, d)+"/.", root).CombinedOutput(); err != nil {
		t.Fatalf("copying the fixture: %v %s", err, out)
	}
}

// dynamicExtra are commands of the analyser's own tables that must hold
// under strace too (beyond the corpus).
var dynamicExtra = []string{
	"find . -name '-delete'",
	"find . -name -delete -print",
	// Paths find supplies, read by a read-only command (issue 26).
	"find . -type f -exec wc -l {} +",
	"find . -name '*.txt' -exec grep -n TODO {} \\;",
	"find . -type f -execdir head -n 1 {} \\;",
	"find . -type d -exec ls -la {} +",
	"find . -type f -print0 | xargs -0 grep -l TODO",
	"find . -type f -print0 | xargs -0 -n 2 -P 2 wc -c",
	"find . -print0 | xargs -0 -I{} stat {}",
	"find . -maxdepth 1 -print0 | xargs -0 -r cat",
	// The same forms over one folder: what the quick suite traces in
	// place of dynamicExtraSlow.
	"find src -type f -execdir head -n 1 {} \\;",
	"find src -type f -print0 | xargs -0 -n 2 -P 2 wc -c",
	"find src -print0 | xargs -0 -I{} stat {}",
	// Loop values, variables and shell state (issue 26).
	`for f in ./*.txt; do wc -l "$f"; done`,
	`for f in src/*; do head -n 2 "$f"; done`,
	`for d in src .; do ls -la $d; done`,
	`n=$(ls | wc -l); echo "$n files"`,
	`while read -r l; do echo "$l"; done < notes.txt`,
	`git log --oneline | while read -r h s; do echo "$h"; done`,
	`set -euo pipefail; ls | wc -l`,
	`shopt -s nullglob; ls`,
	`alias; hash; trap -p; set -o; shopt -p; declare -F`,
	`export LC_ALL=C; sort notes.txt`,
	`awk 'BEGIN {FS=":"} $3 >= 0 {printf "%s\n", $1}' /etc/passwd`,
	`awk '{ if (NF > 2) print $1; else print ($1 > "m") }' notes.txt`,
	// A "|" inside a regular expression literal is text, not a pipe.
	`awk -F: '{ if ($2 ~/[Ii]mage|EPS/) print $1}' notes.txt`,
	`find . -type f -exec file {} \; | awk -F: '$2 ~ /text|data/ { print $1 }'`,
	`find src -type f -exec file {} \; | awk -F: '$2 ~ /text|data/ { print $1 }'`,
	// No Info node has the name: info runs man -a (issue 26, fresh2).
	`info bash 'Shell Expansions'`,
}

// dynamicExtraSlow are the commands of dynamicExtra that run a process
// per file of the whole fixture (its .git included): a second of CPU and
// more each under strace. Only -tags slow traces them; the quick suite
// traces the same forms over src (dynamicExtra).
var dynamicExtraSlow = map[string]bool{
	"find . -type f -execdir head -n 1 {} \\;":          true,
	"find . -type f -print0 | xargs -0 -n 2 -P 2 wc -c": true,
	"find . -print0 | xargs -0 -I{} stat {}":            true,
	`info bash 'Shell Expansions'`:                      true, // man formats the bash page: seconds under strace

	// file over every file of the fixture: half a second under strace.
	`find . -type f -exec file {} \; | awk -F: '$2 ~ /text|data/ { print $1 }'`: true,
}

// commandShape is the program of a command line's first word, with its
// subcommand when the program takes subcommands ("git log", "ls").
func commandShape(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	if len(f) > 1 && flagspec.HasSubcommands(f[0]) && !strings.HasPrefix(f[1], "-") {
		return f[0] + " " + f[1]
	}
	return f[0]
}

// A batch judges each command on its own processes only: a write, a
// delete through a child shell, a mkdir after a read, and a write by a
// background process that outlives its command (made while the next
// command runs) each land on their own command, a command stopped at its
// deadline does not stop the batch, and the read-only commands around
// them have no effect.
func TestDynamicBatchKeepsCommandsApart(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	template := fixtureTemplate(t, d)
	cases := []struct {
		cmd     string
		want    string // a substring of one effect; "" for none
		timeout bool
	}{
		{"cat notes.txt", "", false},
		{"echo x > out.txt", "out.txt", false},
		{"sh -c 'rm notes.txt' & wait", "unlinkat " + template + "/home/proj/notes.txt", false},
		{"sleep 60", "", true},
		{"ls; mkdir d", "mkdir", false},
		{"(sleep 0.3; echo x > late.txt) & exit 0", "late.txt", false},
		{"cat other.txt; sleep 0.6", "", false},
	}
	jobs := make([]tracedJob, len(cases))
	for i, c := range cases {
		jobs[i] = tracedJob{cmd: c.cmd}
	}
	// The corpus runs' own deadline: "cat other.txt; sleep 0.6" (there so
	// that the late write lands while it runs) must end well within it on
	// a loaded machine, under strace; a 1 s deadline did not in one CI run.
	for i, res := range d.runBatch(t, template, jobs, dynamicTimeout) {
		c := cases[i]
		found := false
		for _, e := range res.effects {
			found = found || c.want != "" && strings.Contains(e, c.want)
		}
		if c.want == "" && len(res.effects) > 0 || c.want != "" && !found {
			t.Errorf("%q: effects %q, want one with %q", c.cmd, res.effects, c.want)
		}
		if res.timeout != c.timeout {
			t.Errorf("%q: timeout %v, want %v", c.cmd, res.timeout, c.timeout)
		}
		// The batch's watchdog stops the command at its deadline and the
		// batch goes on: no command is traced again on its own.
		if !res.batched {
			t.Errorf("%q: not finished in its batch (traced again on its own)", c.cmd)
		}
	}
}

// TestDynamicPrivateTmp: a traced command (run as nobody) that writes or
// deletes in the machine's world-writable directories changes nothing
// there, in a batch or alone, and the effect is still seen: /tmp, /var/tmp,
// /dev/shm and /run/lock are the namespace's own (privateMountsMain).
func TestDynamicPrivateTmp(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	template := fixtureTemplate(t, d)
	var victims []string
	for _, dir := range []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock"} {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o002 == 0 {
			continue
		}
		f, err := os.CreateTemp(dir, "permopa-private-tmp-")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		defer os.Remove(f.Name())
		os.Chmod(f.Name(), 0o666)
		if d.root {
			os.Chown(f.Name(), 65534, 65534) // the tracee's own file: it may delete it
		}
		victims = append(victims, f.Name())
	}
	if len(victims) == 0 {
		t.Skip("no world-writable temporary directory")
	}
	// One traced run on its own doing it to every directory, and one batch
	// with a command per directory after a first command (each judged on
	// its own processes).
	cmds := make([]string, len(victims))
	for i, v := range victims {
		cmds[i] = "rm -f " + v + "; echo x > " + v + "-new"
	}
	single := d.run(t, template, strings.Join(cmds, "; "), nil, nil, dynamicTimeout)
	batched := d.runBatch(t, template, append([]tracedJob{{cmd: "true"}}, func() (jobs []tracedJob) {
		for _, c := range cmds {
			jobs = append(jobs, tracedJob{cmd: c})
		}
		return jobs
	}()...), dynamicTimeout)[1:]
	for _, batch := range []bool{false, true} {
		for i, v := range victims {
			created := v + "-new"
			cmd, res := cmds[i], single
			if batch {
				res = batched[i]
			}
			if _, err := os.Stat(v); err != nil {
				t.Errorf("batch=%v: %q removed the machine's %s: %v", batch, cmd, v, err)
			}
			if _, err := os.Stat(created); err == nil {
				os.Remove(created)
				t.Errorf("batch=%v: %q created the machine's %s", batch, cmd, created)
			}
			var unlink, write bool
			for _, e := range res.effects {
				unlink = unlink || strings.Contains(e, "unlink") && strings.Contains(e, v)
				write = write || strings.Contains(e, created)
			}
			if !unlink || !write {
				t.Errorf("batch=%v: %q: effects %q, want its unlink and its write", batch, cmd, res.effects)
			}
		}
	}
}

// The trace parser reads argv arrays whose strings hold "], " and escapes,
// and file paths relative to the decorated directory fd.
func TestTraceParsing(t *testing.T) {
	t.Parallel()
	argv := execArgv(`"/usr/bin/jq", [".[a], .[b],", "-r", "x\"y\\n"], 0x7ff /* 3 vars */`)
	if strings.Join(argv, "|") != `.[a], .[b],|-r|x"y\n` {
		t.Errorf("execArgv: %q", argv)
	}
	if ps := syscallPaths(`AT_FDCWD</w/p>, "a/b", O_WRONLY`, 1); len(ps) != 1 || ps[0] != "/w/p/a/b" {
		t.Errorf("syscallPaths: %q", ps)
	}
	if e := socketEffect("sendto", `3<NETLINK:[ROUTE:1]>, [{nlmsg_len=32, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_REQUEST}], 32`); e == "" {
		t.Error("RTM_NEWADDR not an effect")
	}
	if e := socketEffect("sendto", `3<NETLINK:[ROUTE:1]>, [{nlmsg_len=40, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP}], 40`); e != "" {
		t.Errorf("RTM_GETLINK: %s", e)
	}
	if e := socketEffect("connect", `3<TCP:[1]>, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}, 16`); !strings.HasPrefix(e, "network") {
		t.Errorf("connect: %q", e)
	}
}

// proofUnavailable ends a security proof that cannot run on this machine.
// In CI (CI set, as .ci/run sets it) it fails: a skipped proof proves
// nothing, and .ci/run installs strace. Elsewhere it skips, and says so on
// stderr, where go test shows it without -v.
func proofUnavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s; CI is set, so this security proof fails instead of skipping", why)
	}
	fmt.Fprintf(os.Stderr, "WARNING: %s SKIPPED, the read-only judgements are not proved: %s (with CI set it fails)\n", t.Name(), why)
	t.Skip("dynamic check skipped: " + why)
}

// TestDynamicCheckCannotBeSkippedInCI runs the dynamic check in a fresh
// test process where strace cannot be found: with CI set the check fails,
// without it the check skips and says so on stderr.
func TestDynamicCheckCannotBeSkippedInCI(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the dynamic check runs on Linux only")
	}
	run := func(ci bool) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDynamicBatchKeepsCommandsApart$", "-test.count=1", "-test.v")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "PATH=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "PATH="+t.TempDir()) // no strace, no unshare
		if ci {
			cmd.Env = append(cmd.Env, "CI=true")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(true)
	if err == nil || !strings.Contains(out, "--- FAIL: TestDynamicBatchKeepsCommandsApart") || !strings.Contains(out, "fails instead of skipping") {
		t.Errorf("with CI set and no strace the dynamic check must fail (err %v):\n%s", err, out)
	}
	out, err = run(false)
	if err != nil || !strings.Contains(out, "--- SKIP: TestDynamicBatchKeepsCommandsApart") || !strings.Contains(out, "WARNING: TestDynamicBatchKeepsCommandsApart SKIPPED") {
		t.Errorf("without CI and no strace the dynamic check must skip loudly (err %v):\n%s", err, out)
	}
}

// TestMain is the mount helper of a traced run when privateMountsEnv is
// set; otherwise it runs the tests and removes the dynamic check's
// fixtures, built once per test binary.
func TestMain(m *testing.M) {
	if os.Getenv(privateMountsEnv) != "" {
		privateMountsMain(os.Args[1:])
	}
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	if nl2bashFixtureDir != "" {
		os.RemoveAll(nl2bashFixtureDir)
	}
	os.Exit(code)
}

// observeExec says why executing path (argv) is an effect of its own in
// observe mode, "" when it is not: code that is not the system's (a program
// outside the system directories, a relative path: the fixture's own), a
// script given to an interpreter, or a build that runs the project's
// recipes. Everything else a program executed does is traced as it happens.
func observeExec(path string, argv []string) string {
	system := false
	for _, dir := range []string{"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/alternatives/"} {
		system = system || strings.HasPrefix(path, dir)
	}
	if !system {
		return "runs code that is not the system's"
	}
	base := filepath.Base(argv[0])
	switch {
	case base == "make" || base == "gmake" || base == "ninja" || base == "npm" || base == "yarn" || base == "cargo" ||
		base == "mvn" || base == "gradle" || base == "ant" || base == "rake":
		return "runs the project's build"
	case base == "sh" || base == "bash" || base == "dash" || base == "zsh" || base == "ksh" ||
		strings.HasPrefix(base, "python") || base == "perl" || base == "ruby" || base == "node" || base == "php":
		// Inline code (-c, -e, -E, -pe, -ne, -le ...) is part of the
		// command and traced; a file operand before it is a script.
		for _, a := range argv[1:] {
			if a == "--" {
				continue
			}
			if strings.HasPrefix(a, "-") {
				if strings.ContainsAny(a[1:], "ceE") && !strings.HasPrefix(a, "--") {
					return ""
				}
				continue
			}
			return "runs a script"
		}
		if base == "sh" || base == "bash" || base == "dash" || base == "zsh" || base == "ksh" {
			return "" // a shell reading its standard input (empty here)
		}
		return "runs a script"
	}
	return ""
}

// execNotReadOnly says why the analyser does not judge a program executed
// (its argv) read-only, "" when it does. An argv too long to analyse whole
// (xargs packs thousands of paths from find /) is judged in pieces: the
// words before the first one holding a "/" (the program, its options and
// pattern), followed by each run of 100 of the rest; every piece must be
// read-only.
func execNotReadOnly(words []string) string {
	judge := func(ws []string) string {
		quoted := make([]string, len(ws))
		for i, a := range ws {
			quoted[i] = shellQuote(a)
		}
		// A program named like a reserved word (time, /usr/bin/time) is a
		// command here, not the keyword.
		if bashReserved[ws[0]] {
			quoted[0] = "'" + ws[0] + "'"
		}
		if a := analyze(strings.Join(quoted, " "), Options{Cwd: "/", Home: "/"}); !a.ReadOnly {
			return strings.Join(a.NotReadOnly, "; ")
		}
		return ""
	}
	size := 0
	for _, w := range words {
		size += len(w) + 1
	}
	if len(words) <= 200 && size <= 8000 {
		return judge(words)
	}
	head := 1
	for head < len(words) && !strings.Contains(words[head], "/") {
		head++
	}
	if head > 100 {
		return judge(words) // no run of paths: judged whole (a limit fails it)
	}
	for i := head; i < len(words); i += 100 {
		piece := append(append([]string{}, words[:head]...), words[i:min(i+100, len(words))]...)
		if why := judge(piece); why != "" {
			return why
		}
	}
	return ""
}

// bashReserved are bash's reserved words.
var bashReserved = map[string]bool{
	"time": true, "if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true,
	"for": true, "select": true, "while": true, "until": true, "do": true, "done": true, "in": true,
	"function": true, "coproc": true, "!": true, "[[": true, "]]": true, "{": true, "}": true,
}

// TestDynamicCacheOwners: a program's cache directory covers that
// program's own writes only, alone and in a batch. sort may write its
// temporary files in /tmp (its vocabulary's cache), but tee, a shell
// redirection or a subshell of the same command writing there is an effect
// (the NL2Bash classification once took `sort -R | tee /tmp/lst` for
// read-only because sort was in the pipeline).
func TestDynamicCacheOwners(t *testing.T) {
	t.Parallel()
	d, why := newDynamicTracer()
	if d == nil {
		proofUnavailable(t, why)
	}
	template := fixtureTemplate(t, d)
	cases := []struct {
		cmd  string
		want string // a substring of one effect; "" for none
	}{
		{"seq 1 10 | sort -R | tee /tmp/lst", "openat /tmp/lst"},
		{"sort notes.txt > /tmp/sorted", "openat /tmp/sorted"},
		{"sort notes.txt | (cat > /tmp/copy)", "openat /tmp/copy"},
		{"(echo x > /tmp/first) | sort", "openat /tmp/first"},
		{"sort notes.txt; echo x > /tmp/after", "openat /tmp/after"},
		{"sort notes.txt | sh -c 'echo x > /tmp/sh'", "openat /tmp/sh"},
		// sort's own temporary files (a 1 KiB buffer spills to them in
		// $TMPDIR, /tmp; sortSpills below shows it writes there).
		{sortSpills, ""},
	}
	var jobs []tracedJob
	var traced []int
	quick := quickFirst{}
	for i, c := range cases {
		a := analyze(c.cmd, realWorldOpts(template))
		if !a.ReadOnly && c.want == "" {
			t.Fatalf("%q: not read-only (%s)", c.cmd, strings.Join(a.NotReadOnly, "; "))
		}
		if !strings.Contains(" "+strings.Join(a.CacheWrites, " ")+" ", " /tmp ") {
			t.Fatalf("%q: cache writes %q, want sort's /tmp", c.cmd, a.CacheWrites)
		}
		// Every case is analysed; without -tags slow the first with an
		// effect and the first without are traced, in a batch and
		// alone; .ci/run traces them all (quickFirst,
		// docs/development.md).
		if quick.take(biteKind(c.want != "")) {
			jobs = append(jobs, tracedJob{cmd: c.cmd, cache: a.CacheWrites, cacheOwners: cacheOwnersOf(a), helpers: helpersFor(a)})
			traced = append(traced, i)
		}
	}
	// The batch ends with sortSpills without its cache: there its spill
	// is an effect, so the case above is not vacuous.
	batched := d.runBatch(t, template, append(append([]tracedJob{{cmd: "true"}}, jobs...), tracedJob{cmd: sortSpills}), dynamicTimeout)[1:]
	for k, i := range traced {
		c := cases[i]
		for _, batch := range []bool{false, true} {
			res := batched[k]
			if !batch {
				res = d.runJob(t, template, jobs[k], dynamicTimeout)
			}
			var effects []string
			for _, e := range res.effects {
				if !strings.Contains(e, " "+ipcPrefix) {
					effects = append(effects, e)
				}
			}
			found := false
			for _, e := range effects {
				found = found || c.want != "" && strings.Contains(e, c.want)
			}
			if c.want == "" && len(effects) > 0 || c.want != "" && !found {
				t.Errorf("%q (batch %v): effects %q, want one with %q", c.cmd, batch, effects, c.want)
			}
		}
	}
	if res := batched[len(jobs)]; !strings.Contains(strings.Join(res.effects, "\n"), "openat /tmp/sort") {
		t.Errorf("%q without a cache: effects %q, want sort's temporary file in /tmp", sortSpills, res.effects)
	}
}

// sortSpills makes sort write temporary files (TestDynamicCacheOwners):
// with a 1 KiB buffer, 2,000 lines spill to some 140 of them (20,000 to
// 1,400, two seconds of CPU under strace).
const sortSpills = "seq 1 2000 | sort -S 1K -n | tail -n 1"
