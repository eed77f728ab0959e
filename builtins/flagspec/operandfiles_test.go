package flagspec

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Operands read as files by programs whose spec took them for text
// (red team of issue 26: xargs hands any word to a program whose every
// option is harmless, flagspec.DynamicWordsHarmless). users FILE and who
// FILE read FILE as a login-records file and print its user and host
// fields; whereis -B/-M/-S DIR… lists each DIR. A credential path there is
// a secret read (who -a ~/.ssh/x prints what x holds where a record's
// fields are), so each such operand is a read, and a word only known at
// run time there (xargs users) is not harmless.
func TestOperandsReadAsFiles(t *testing.T) {
	for _, c := range []struct {
		argv  []string
		reads []string
	}{
		{[]string{"users", "/home/u/.ssh/id_rsa"}, []string{"/home/u/.ssh/id_rsa"}},
		{[]string{"who", "/home/u/.ssh/id_rsa"}, []string{"/home/u/.ssh/id_rsa"}},
		{[]string{"who", "-a", "/var/log/btmp"}, []string{"/var/log/btmp"}},
		{[]string{"who", "-q", "--", "k"}, []string{"k"}},
		{[]string{"whereis", "-B", "/home/u/.ssh", "-f", "id_rsa"}, []string{"/home/u/.ssh"}},
		{[]string{"whereis", "-b", "-M", "/root", "/home/u/.gnupg", "-f", "x"}, []string{"/root", "/home/u/.gnupg"}},
		{[]string{"whereis", "-S", "/home/u/.aws", "-f", "credentials"}, []string{"/home/u/.aws"}},
	} {
		v := Judge(c.argv)
		for _, p := range c.reads {
			if !slices.Contains(v.Reads, p) {
				t.Errorf("%q: reads %q, want %q among them", c.argv, v.Reads, p)
			}
		}
	}
	// Reads nothing it is not given (the controls stay read-only).
	for _, argv := range [][]string{{"users"}, {"who"}, {"who", "am", "i"}, {"who", "-a"}, {"whereis", "ls"}, {"whereis", "-b", "ls", "cat"}} {
		if v := Judge(argv); !v.ReadOnly || len(v.Reads) != 0 {
			t.Errorf("%q: read-only %v, reads %q; want read-only, no reads", argv, v.ReadOnly, v.Reads)
		}
	}
	for _, argv := range [][]string{{"users", Dynamic}, {"who", Dynamic}, {"whereis", "-B", Dynamic}, {"whereis", Dynamic}} {
		at := []int{len(argv) - 1}
		if _, ok := DynamicWordsHarmless(argv, at, []bool{true}); ok {
			t.Errorf("%q: a run-time word is harmless", argv)
		}
	}
}

// TestOperandsReadAsFilesForReal: the real who and users print the user
// and host fields of a file they are handed, and whereis -B lists the
// directory it is given.
func TestOperandsReadAsFilesForReal(t *testing.T) {
	for _, p := range []string{"who", "users", "whereis"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not installed")
		}
	}
	dir := t.TempDir()
	// One glibc utmp record (384 bytes on 64-bit Linux): ut_type
	// USER_PROCESS, ut_pid, ut_line, ut_id, ut_user, ut_host.
	rec := make([]byte, 384)
	binary.LittleEndian.PutUint16(rec[0:], 7)
	binary.LittleEndian.PutUint32(rec[4:], 4242)
	copy(rec[8:], "pts/9")
	copy(rec[40:], "ts/9")
	copy(rec[44:], "s3cr3tpw")
	copy(rec[76:], "hunter2.example")
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, rec, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"users", secret}, {"who", secret}, {"who", "-a", secret}} {
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
		if !strings.Contains(string(out), "s3cr3tpw") {
			t.Errorf("%q printed %q: not the record's user (the file is not read as assumed)", argv, out)
		}
	}
	out, err := exec.Command("whereis", "-B", dir, "-f", "secret").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), secret) {
		t.Errorf("whereis -B %s -f secret printed %q: the directory is not listed as assumed", dir, out)
	}
}
