package settings

// settings_read.go: reading a settings file's bytes, bounded, through no link to a credential.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/permopa/permopa/builtins/paths"
)

// MaxSettingsBytes caps one settings file: a larger file is refused rather
// than read (ten thousand rules take a few hundred kilobytes; reading 4 MiB
// of rules took 300 MB: BENCHMARKS.md, "Hostile settings files").
const MaxSettingsBytes = 1 << 20

// readSettingsBytes reads a settings file for loading or editing. The file
// (after following symbolic links) must be a regular file of at most
// MaxSettingsBytes, nesting at most MaxSettingsDepth levels and holding at
// most MaxSettingsValues values (settings_bounds.go). When the path goes through a symbolic link, the file it
// ends at must also look like a settings file: the same extension as the
// name it is read under (the extension says which format to parse) and not
// a credential path. A link such as `.permopa/settings.yaml -> ~/.ssh/id_rsa`
// or `-> /etc/shadow` is refused without reading it, so its content can
// reach no error message, log or hook answer (docs/hosts.md, "Which
// settings a hook uses"). It returns the content and the real path.
func readSettingsBytes(file string) ([]byte, string, error) {
	real, err := checkSettingsTarget(file)
	if err != nil {
		return nil, "", err
	}
	f, err := openNonBlocking(real)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if !info.Mode().IsRegular() {
		// A FIFO or device would block or never end.
		return nil, "", fmt.Errorf("is not a regular file (%s); not read", fileKind(info.Mode()))
	}
	if info.Size() > MaxSettingsBytes {
		return nil, "", fmt.Errorf("is %d bytes, over the %d bytes a settings file may have; not read", info.Size(), MaxSettingsBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSettingsBytes+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > MaxSettingsBytes {
		return nil, "", fmt.Errorf("is over the %d bytes a settings file may have; not read", MaxSettingsBytes)
	}
	// Nesting and size of the document, before any decoder builds it.
	if err := checkSettingsShape(strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), "."), data); err != nil {
		return nil, "", err
	}
	return data, real, nil
}

// checkSettingsTarget resolves the symbolic links of file and returns the
// real path; a link to something that is not a settings file is an error.
func checkSettingsTarget(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if real == abs {
		return real, nil
	}
	want := strings.ToLower(filepath.Ext(abs))
	if got := strings.ToLower(filepath.Ext(real)); got != want {
		return "", fmt.Errorf("is a symbolic link to %s, which is not a %s settings file; not read (replace the link with a regular file)", real, strings.TrimPrefix(want, "."))
	}
	if _, credential, reason := paths.Classify(real, nil); credential {
		return "", fmt.Errorf("is a symbolic link to %s, a credential path (%s); not read", real, reason)
	}
	return real, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// quoted matches the quoted parts of a parser's message ('x', "x", `x`),
// which can carry the file's own text.
var quoted = regexp.MustCompile("`[^`]*`|'[^']*'|\"[^\"]*\"")

// parseError is a settings parser's error without any text of the file: a
// file that is not settings (a key, a password file behind a renamed
// path) must not leak into messages that reach agents and logs. Positions
// (line numbers) stay, and so do the syntax tokens the parser names (',',
// ']', '}', ':'): they carry no secret and say what to fix.
func parseError(format string, err error) error {
	msg := quoted.ReplaceAllStringFunc(err.Error(), func(q string) string {
		if syntaxToken(q[1 : len(q)-1]) {
			return q
		}
		return "(…)"
	})
	msg = strings.Join(strings.Fields(msg), " ")
	return errors.New("not valid " + format + ": " + msg)
}

// syntaxToken reports what a parser names as the offending token: one
// printable character ("invalid character 'B'"), or a short run of
// punctuation (a token of the format's grammar); never a longer value of
// the file.
func syntaxToken(s string) bool {
	if r := []rune(s); len(r) == 1 && unicode.IsPrint(r[0]) && !unicode.IsSpace(r[0]) {
		return true
	}
	if s == "" || len(s) > 3 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("{}[],:;=#&*!|>'\"%@`-?.()<", r) {
			return false
		}
	}
	return true
}
