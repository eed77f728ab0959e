package hookproto

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// MaxFetchURLs caps the URLs of one web_fetch call (Gemini CLI documents
// up to 20): each is a decision.
const MaxFetchURLs = 100

// geminiFetchURLs are the URLs a Gemini CLI web_fetch call may fetch, each
// in the form the policy reads (fetchURL): tool_input.url (Gemini's direct
// fetch mode) and every URL of tool_input.prompt (its usual mode), found as
// Gemini finds them: the prompt split at white space (JavaScript's \s),
// each word holding "://" taken as a URL. Which mode the host runs in the
// payload does not say, so both are read. A GitHub blob URL is also
// fetched from raw.githubusercontent.com (Gemini converts it), so both
// hosts are decided. A word Gemini would refuse (not http or https, or
// malformed) or one whose host permopa cannot read with certainty is an
// error: the call is blocked, naming it (Gemini refuses such a prompt).
func geminiFetchURLs(ti map[string]any) ([]string, error) {
	var words []string
	if v, ok := ti["url"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("tool_input.url: must be a string")
		}
		if s != "" {
			words = append(words, s)
		}
	}
	if v, ok := ti["prompt"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("tool_input.prompt: must be a string")
		}
		for _, w := range strings.FieldsFunc(s, jsSpace) {
			if strings.Contains(w, "://") {
				words = append(words, w)
			}
		}
	}
	if len(words) == 0 {
		return nil, errors.New("tool_input: web_fetch names no URL (in url or prompt), so what it fetches cannot be decided")
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		u, err := fetchURL(w)
		if err != nil {
			return nil, fmt.Errorf("tool_input: web_fetch URL %q: %v", w, err)
		}
		for _, x := range []string{u, githubRaw(u)} {
			if x != "" && !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	if len(out) > MaxFetchURLs {
		return nil, fmt.Errorf("tool_input: web_fetch names %d URLs, more than the %d permopa decides in one call", len(out), MaxFetchURLs)
	}
	return out, nil
}

// jsSpace is JavaScript's \s: the white space and line terminators
// String.prototype.split(/\s+/) splits at.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// fetchURL reads s as a browser's URL parser (the WHATWG URL standard,
// which Gemini CLI's `new URL` follows) reads an http or https URL, as far
// as the host is concerned, and returns it as scheme://host[:port] and
// the rest, so that no reading of it names another host:
//   - tabs and newlines anywhere are dropped, surrounding spaces and
//     controls trimmed; the scheme is read in any case;
//   - any run of '/' and '\' after "scheme:" leads to the authority, which
//     ends at '/', '\', '?' or '#';
//   - the host follows the last '@' of the authority (user:pass@ before);
//   - the host is percent-decoded and lower-cased, a number-form IPv4
//     address (0x7f.1) made dotted decimal, and one trailing dot dropped
//     (the same name in DNS).
//
// What permopa does not read with certainty is an error: another scheme,
// a non-ASCII host (IDNA mapping), an empty label, a character other than
// a letter, digit, '-' or '_' in the host, a bad port.
func fetchURL(s string) (string, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return "", errors.New("no scheme")
	}
	scheme := strings.ToLower(s[:colon])
	if scheme != "http" && scheme != "https" {
		return "", errors.New("only http and https URLs are fetched")
	}
	rest := strings.TrimLeft(s[colon+1:], `/\`)
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:]
	}
	host, port := authority, ""
	if strings.HasPrefix(host, "[") {
		i := strings.IndexByte(host, ']')
		if i < 0 {
			return "", errors.New("unclosed IPv6 address")
		}
		host, port = strings.ToLower(host[:i+1]), host[i+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return "", errors.New("text after the IPv6 address")
		}
		port = strings.TrimPrefix(port, ":")
	} else {
		if i := strings.IndexByte(host, ':'); i >= 0 {
			host, port = host[:i], host[i+1:]
		}
		var err error
		if host, err = fetchHost(host); err != nil {
			return "", err
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
			return "", fmt.Errorf("bad port %q", port)
		}
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		} else {
			port = ":" + strconv.Itoa(n)
		}
	}
	// The path: a '\' is a '/' in an http(s) URL.
	if q := strings.IndexAny(tail, "?#"); q >= 0 {
		tail = strings.ReplaceAll(tail[:q], `\`, "/") + tail[q:]
	} else {
		tail = strings.ReplaceAll(tail, `\`, "/")
	}
	if !strings.HasPrefix(tail, "/") {
		tail = "/" + tail // an http(s) URL's path is at least "/"
	}
	return scheme + "://" + host + port + tail, nil
}

// fetchHost is the host of an http(s) URL as WHATWG reads a domain or an
// IPv4 address, or an error where permopa cannot be sure.
func fetchHost(h string) (string, error) {
	d, err := url.PathUnescape(h)
	if err != nil {
		return "", fmt.Errorf("bad percent-encoding in host %q", h)
	}
	d = strings.ToLower(d)
	for _, r := range d {
		if r >= 0x80 {
			return "", fmt.Errorf("host %q is not ASCII; write it in its xn-- form", h)
		}
		// What a DNS name holds (the policy's domain rules read no more,
		// rego/permopa/policy/tools/other/other.rego _certain_url).
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return "", fmt.Errorf("host %q holds %q", h, r)
		}
	}
	d = strings.TrimSuffix(d, ".")
	if d == "" {
		return "", errors.New("no host")
	}
	labels := strings.Split(d, ".")
	for _, l := range labels {
		if l == "" {
			return "", fmt.Errorf("host %q has an empty label", h)
		}
	}
	if last := labels[len(labels)-1]; isIPv4Number(last) {
		return ipv4(labels)
	}
	return d, nil
}

// isIPv4Number: WHATWG reads a host whose last label is a number (decimal,
// or 0x hex) as an IPv4 address.
func isIPv4Number(l string) bool {
	if strings.TrimLeft(l, "0123456789") == "" {
		return true
	}
	if x, ok := strings.CutPrefix(l, "0x"); ok {
		return strings.TrimLeft(x, "0123456789abcdef") == ""
	}
	return false
}

// ipv4 is the dotted-decimal form of an IPv4 host in any of the forms
// WHATWG accepts (1 to 4 parts, each decimal, 0x hex or 0 octal, the last
// filling the remaining bytes).
func ipv4(labels []string) (string, error) {
	if len(labels) > 4 {
		return "", errors.New("an IPv4 address of more than four parts")
	}
	var parts []uint64
	for _, l := range labels {
		base, digits := 10, l
		switch {
		case strings.HasPrefix(l, "0x"):
			base, digits = 16, l[2:]
		case len(l) > 1 && l[0] == '0':
			base, digits = 8, l[1:]
		}
		n := uint64(0)
		if digits != "" {
			var err error
			if n, err = strconv.ParseUint(digits, base, 64); err != nil {
				return "", fmt.Errorf("bad IPv4 part %q", l)
			}
		}
		parts = append(parts, n)
	}
	last := parts[len(parts)-1]
	if last >= 1<<(8*(5-len(parts))) {
		return "", errors.New("an IPv4 address out of range")
	}
	v := last
	for i, p := range parts[:len(parts)-1] {
		if p > 255 {
			return "", errors.New("an IPv4 address out of range")
		}
		v += p << (8 * (3 - i))
	}
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255), nil
}

// githubRaw is the raw.githubusercontent.com URL Gemini CLI fetches for a
// GitHub blob URL (u in fetchURL's form), or "".
func githubRaw(u string) string {
	rest, ok := strings.CutPrefix(u, "https://github.com/")
	if !ok {
		rest, ok = strings.CutPrefix(u, "http://github.com/")
	}
	path := rest
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if !ok || !strings.Contains("/"+path, "/blob/") {
		return ""
	}
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) == 4 && parts[2] == "blob" && parts[0] != "" && parts[1] != "" {
		rest = parts[0] + "/" + parts[1] + "/" + parts[3]
	}
	return "https://raw.githubusercontent.com/" + rest
}
