//go:build !linux

package hookwire

import (
	"errors"
	"os"
	"time"
)

// HookServerSupported: the hook server needs Linux (SO_PEERCRED, the
// directory reached through /proc/self/fd); elsewhere every call is
// decided by a local process.
const HookServerSupported = false

var errNoHookServer = errors.New("no hook server on this system")

func HookServerDir(func(string) string) string    { return "" }
func OpenHookServerDir(string) (*os.File, error)  { return nil, errNoHookServer }
func CheckHookServerDir(*os.File) error           { return errNoHookServer }
func InDir(dir *os.File, name string) string      { return "" }
func SocketName(key string) string                { return key + ".sock" }
func LockName(key string) string                  { return key + ".lock" }
func LogName(key string) string                   { return key + ".log" }
func FileIdentity(string) (BinaryIdentity, error) { return BinaryIdentity{}, errNoHookServer }

var ErrHookServerStarting = errors.New("another hook server holds the lock")

func StartHookServer(*os.File, string, string, []string) error { return errNoHookServer }
func Ask(*os.File, string, ServeRequest, time.Time, time.Duration) (ServeAnswer, error) {
	return ServeAnswer{}, errNoHookServer
}

var ErrLogNotRegular = errors.New("the --log file is not a regular file")

func OpenLog(string) (int, error) { return 0, errNoHookServer }
