package adapter

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineReaderLimit: a line of exactly max bytes is whole, one byte more
// is too long and cut at max; the newline does not count; the line after
// a long one is read from its start.
func TestLineReaderLimit(t *testing.T) {
	in := "0123456789\n0123456789A\n\n0123456789\r\nabc\n0123456789AB"
	want := []struct {
		text    string
		tooLong bool
	}{
		{"0123456789", false}, {"0123456789", true}, {"", false}, {"0123456789", true}, {"abc", false}, {"0123456789", true},
	}
	for _, size := range []int{16, 17, 64} { // bufio's smallest buffer, odd sizes, whole lines
		lr := lineReader{br: bufio.NewReaderSize(strings.NewReader(in), size), max: 10}
		for i, w := range want {
			text, num, tooLong, err := lr.next()
			if err != nil || string(text) != w.text || tooLong != w.tooLong || num != i+1 {
				t.Errorf("buffer %d, line %d: %q %d %v %v, want %q %v", size, i+1, text, num, tooLong, err, w.text, w.tooLong)
			}
		}
		if _, _, _, err := lr.next(); !errors.Is(err, io.EOF) {
			t.Errorf("buffer %d: after the last line: %v", size, err)
		}
	}
}
