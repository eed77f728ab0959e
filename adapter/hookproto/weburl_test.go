package hookproto

import "testing"

// TestFetchURLReadsTheHostAsABrowser: the host each URL names for WHATWG's
// parser (what `new URL(s).host` gives in Node), in the form the policy's
// domain rules read; hosts permopa cannot be sure of are errors.
func TestFetchURLReadsTheHostAsABrowser(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://docs.python.org/3/":              "https://docs.python.org/3/",
		"https://docs.python.org":                 "https://docs.python.org/",
		"HTTPS://Docs.Python.ORG./a?b#c":          "https://docs.python.org/a?b#c",
		"https://evil.example\\@good.example/":    "https://evil.example/@good.example/",
		"https://a@b@evil.example/":               "https://evil.example/",
		"https://good.example:x@evil.example/":    "https://evil.example/",
		"https:\\\\evil.example\\a\\b?c\\d":       "https://evil.example/a/b?c\\d",
		"https:evil.example":                      "https://evil.example/",
		"https:///evil.example/":                  "https://evil.example/",
		" \x01https://evil.example/ ":             "https://evil.example/",
		"ht\ttps://ev\nil.example/":               "https://evil.example/",
		"https://evil%2eexample/":                 "https://evil.example/",
		"https://evil.example:443/":               "https://evil.example/",
		"http://evil.example:80/":                 "http://evil.example/",
		"https://evil.example:8443/":              "https://evil.example:8443/",
		"https://evil.example:/":                  "https://evil.example/",
		"http://0x7f.1/":                          "http://127.0.0.1/",
		"http://2130706433/":                      "http://127.0.0.1/",
		"http://0177.0.0.01/":                     "http://127.0.0.1/",
		"http://[::1]:8080/":                      "http://[::1]:8080/",
		"https://good.example#@evil.example/":     "https://good.example/#@evil.example/",
		"https://good.example?x=https://evil.ex/": "https://good.example/?x=https://evil.ex/",
	} {
		got, err := fetchURL(in)
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{
		"ftp://evil.example/", "javascript://x", "://x", "(https://evil.example)", "https://", "https://@/",
		"https://évil.example/", "https://evil\uff0eexample/", "https://evil..example/", "https://.evil.example/",
		"https://evil.example:99999/", "https://evil.example:8a/", "https://evil%zzexample/", "https://ev%00il.example/",
		"https://evil^example/", "https://ev!l.example/", "https://evil.example%00/", "http://1.2.3.4.5/", "http://256.1.1.1/", "http://1.2.3.09/", "http://evil.1/", "http://[::1/",
	} {
		if got, err := fetchURL(in); err == nil {
			t.Errorf("%q: %q, want an error", in, got)
		}
	}
}
