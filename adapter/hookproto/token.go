package hookproto

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Token files: a permopa server listening on TCP accepts its write routes
// (POST /v1/permission/confirm, OPA's data and policy writes) only from
// callers that present a token from one of them, as Authorization: Bearer
// (docs/opa.md, "Authentication"). The server generates them at its first
// start; a file must belong to the user reading it and be readable by no
// one else, or it is refused.
const (
	// TokenFileName is the agents' token: checks, and confirmations of
	// the rules a check suggested.
	TokenFileName = "server-token"
	// AdminTokenFileName is the administrators' token: any confirmation,
	// and OPA's data and policy writes.
	AdminTokenFileName = "server-admin-token"
	// EnvServerTokenFile names the token file a hook client reads instead
	// of the default.
	EnvServerTokenFile = "PERMOPA_SERVER_TOKEN_FILE"
)

// minTokenLength is the shortest token a file may hold.
const minTokenLength = 16

// ConfigDir is the user's permopa directory, as the settings layers find
// it: $PERMOPA_CONFIG_DIR, else $XDG_CONFIG_HOME/permopa, else
// ~/.config/permopa ("" when none is set).
func ConfigDir(getenv func(string) string) string {
	if d := getenv("PERMOPA_CONFIG_DIR"); d != "" {
		return d
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "permopa")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "permopa")
	}
	return ""
}

// DefaultTokenFile is the token file a hook client reads:
// $PERMOPA_SERVER_TOKEN_FILE, else server-token in ConfigDir.
func DefaultTokenFile(getenv func(string) string) string {
	if f := getenv(EnvServerTokenFile); f != "" {
		return f
	}
	if d := ConfigDir(getenv); d != "" {
		return filepath.Join(d, TokenFileName)
	}
	return ""
}

// ReadTokenFile reads a token file: a regular file (not a symbolic link)
// owned by this user, with no permission for group or others, holding one
// token of at least 16 characters.
func ReadTokenFile(path string) (string, error) {
	if path == "" {
		return "", errors.New("no token file (set HOME, PERMOPA_CONFIG_DIR or " + EnvServerTokenFile + ")")
	}
	info, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("token file %s: not a regular file (a symbolic link is refused)", path)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("token file %s: mode %04o lets others read it; refused (chmod 600 it, and make a new token if others may have read it)", path, info.Mode().Perm())
	}
	if err := checkOwner(info); err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	tok := strings.TrimSpace(string(raw))
	if len(tok) < minTokenLength || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("token file %s: want one token of at least %d characters", path, minTokenLength)
	}
	return tok, nil
}

// EnsureTokenFile reads the token file at path, creating it with a new
// random token (mode 0600, its directory 0700 when created) when it does
// not exist.
func EnsureTokenFile(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("token file %s: %w", path, err)
		}
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		tok := base64.RawURLEncoding.EncodeToString(b[:])
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.WriteString(tok + "\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(path)
			}
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("token file %s: %w", path, err)
		}
	}
	return ReadTokenFile(path)
}
