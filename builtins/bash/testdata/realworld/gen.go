//go:build ignore

// gen extracts the example commands of tldr-pages (https://github.com/tldr-pages/tldr,
// CC BY 4.0) for the programs agents run, replaces their {{placeholders}} with
// paths and values of the dynamic check's fixture tree (see
// builtins/bash/realworld_test.go), and writes builtins/bash/testdata/realworld.tsv.
// Labels already in the file are kept (they are reviewed by hand); new rows
// get the label "new".
//
//	go run ./builtins/bash/testdata/realworld/gen.go -repo /path/to/tldr.git [-rev HEAD]
//
// Only the extracted example commands are kept (test inputs), nothing else
// of tldr-pages.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

var (
	repo = flag.String("repo", "", "tldr-pages git directory (bare is fine)")
	rev  = flag.String("rev", "HEAD", "revision to read")
	out  = flag.String("out", "builtins/bash/testdata/realworld.tsv", "the TSV to write")
	list = flag.String("pages", "builtins/bash/testdata/realworld/pages.txt", "page names, one or more a line")
)

func git(args ...string) []byte {
	cmd := exec.Command("git", append([]string{"--git-dir", *repo}, args...)...)
	b, err := cmd.Output()
	if err != nil {
		return nil
	}
	return b
}

type row struct {
	cmd, label, source, note string
}

func main() {
	flag.Parse()
	if *repo == "" {
		log.Fatal("-repo is required")
	}
	commit := strings.TrimSpace(string(git("rev-parse", *rev)))
	if commit == "" {
		log.Fatalf("cannot resolve %s in %s", *rev, *repo)
	}
	pages, err := os.ReadFile(*list)
	if err != nil {
		log.Fatal(err)
	}
	old := map[string]row{}
	if f, err := os.Open(*out); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			c := strings.Split(line, "\t")
			if len(c) >= 4 && c[0] != "command" {
				old[c[0]] = row{c[0], c[1], c[2], c[3]}
			}
		}
		f.Close()
	}
	seen := map[string]bool{}
	var rows []row
	var names []string
	for _, line := range strings.Split(string(pages), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		names = append(names, strings.Fields(line)...)
	}
	for _, name := range names {
		found := false
		for _, dir := range []string{"common", "linux"} {
			p := "pages/" + dir + "/" + name + ".md"
			b := git("show", commit+":"+p)
			if b == nil {
				continue
			}
			found = true
			for _, ex := range examples(b) {
				for _, c := range expand(ex) {
					if seen[c] {
						continue
					}
					seen[c] = true
					r := row{cmd: c, label: "new", source: "tldr:" + p, note: ""}
					if o, ok := old[c]; ok {
						r.label, r.note = o.label, o.note
					}
					rows = append(rows, r)
				}
			}
		}
		if !found {
			log.Printf("no page %s", name)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Real-world command usage: the example commands of tldr-pages (https://github.com/tldr-pages/tldr,\n")
	fmt.Fprintf(&b, "# CC BY 4.0) at commit %s, pages listed in realworld/pages.txt, placeholders\n", commit)
	fmt.Fprintf(&b, "# replaced with paths of the dynamic check's fixture (realworld_test.go), a leading sudo dropped.\n")
	fmt.Fprintf(&b, "# Regenerate: go run ./builtins/bash/testdata/realworld/gen.go -repo DIR (labels are kept).\n")
	fmt.Fprintf(&b, "# label: readonly (changes nothing, runs nothing else, no network), netread (only talks to a\n")
	fmt.Fprintf(&b, "# service configured outside the command: read-only unless network_reads is ask), not_readonly,\n")
	fmt.Fprintf(&b, "# runtime (operands decided at run time, e.g. xargs cat: left out of recall). note: why, when not obvious.\n")
	fmt.Fprintf(&b, "command\tlabel\tsource\tnote\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", r.cmd, r.label, r.source, r.note)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.label == "new" {
			n++
		}
	}
	log.Printf("%d rows (%d new) from %d page names", len(rows), n, len(names))
}

// examples returns the command of every example of a page.
func examples(page []byte) []string {
	var out []string
	for _, line := range strings.Split(string(page), "\n") {
		if len(line) > 2 && line[0] == '`' && line[len(line)-1] == '`' {
			// Keys to press inside a program (<Space>, <q>) are no commands.
			if ex := line[1 : len(line)-1]; !strings.HasPrefix(ex, "<") {
				out = append(out, ex)
			}
		}
	}
	return out
}

// A placeholder, with the extension written right after it
// ({{path/to/archive}}.zip), which belongs to the path.
var placeholder = regexp.MustCompile(`\{\{(.*?)\}\}((?:\.[A-Za-z0-9]+)*)`)

// expand returns the example with its placeholders replaced: once with the
// first of each option alternative ({{[-a|--all]}}) and once with the last,
// when that differs. Examples that need a terminal session or a second
// line are dropped.
func expand(ex string) []string {
	ex = strings.TrimSpace(ex)
	ex = strings.TrimPrefix(ex, "sudo ")
	var out []string
	for _, last := range []bool{false, true} {
		counts := map[string]int{}
		c := placeholder.ReplaceAllStringFunc(ex, func(m string) string {
			sm := placeholder.FindStringSubmatch(m)
			in, suffix := sm[1], sm[2]
			if suffix != "" && strings.Contains(in, "/") && !strings.Contains(in, " ") {
				return value(in+suffix, last, counts)
			}
			return value(in, last, counts) + suffix
		})
		c = strings.TrimSpace(c)
		if c == "" || strings.HasPrefix(c, "<") || strings.ContainsAny(c, "\t\n") || strings.Contains(c, "{{") {
			continue
		}
		if len(out) == 0 || out[0] != c {
			out = append(out, c)
		}
	}
	return out
}

// value maps one placeholder to a concrete word (or words).
func value(in string, last bool, counts map[string]int) string {
	// Option alternatives: {{[-l|--long]}}, {{[a|address]}}.
	if strings.HasPrefix(in, "[") && strings.HasSuffix(in, "]") {
		alts := strings.Split(in[1:len(in)-1], "|")
		if last {
			return alts[len(alts)-1]
		}
		return alts[0]
	}
	// Several values: {{path/to/file1 path/to/file2 ...}}.
	if strings.HasSuffix(in, " ...") || strings.HasSuffix(in, "...") && strings.Contains(in, " ") {
		words := strings.Fields(strings.TrimSuffix(in, "..."))
		var vs []string
		for _, w := range words {
			if w == "..." {
				continue
			}
			vs = append(vs, value(w, last, counts))
		}
		return strings.Join(vs, " ")
	}
	// An optional part: path/to/source.tar[.gz|.bz2|.xz] is source.tar.gz.
	if i := strings.IndexByte(in, '['); i > 0 && strings.HasSuffix(in, "]") {
		alts := strings.Split(in[i+1:len(in)-1], "|")
		return value(in[:i]+alts[0], last, counts)
	}
	// Value alternatives: {{f|d}}, {{pr_number|url|branch}}.
	if strings.Contains(in, "|") && !strings.ContainsAny(in, " '\"") {
		return value(strings.Split(in, "|")[0], last, counts)
	}
	if strings.Contains(in, "/") && !strings.Contains(in, "://") && !strings.ContainsAny(in, " ") {
		return pathValue(in, counts)
	}
	// A command with a path ({{cat path/to/file.json}}): each word on its own.
	if strings.Contains(in, " ") && strings.Contains(in, "path/to") {
		var ws []string
		for _, w := range strings.Fields(in) {
			ws = append(ws, value(w, last, counts))
		}
		return strings.Join(ws, " ")
	}
	return word(in)
}

// pathValue maps a path placeholder to a fixture path (realworld_test.go builds them).
func pathValue(in string, counts map[string]int) string {
	low := strings.ToLower(in)
	base := low[strings.LastIndexByte(low, '/')+1:]
	ext := func(suffixes ...string) bool {
		for _, s := range suffixes {
			if strings.HasSuffix(base, s) {
				return true
			}
		}
		return false
	}
	nth := func(key string, vals ...string) string {
		i := counts[key]
		counts[key]++
		return vals[i%len(vals)]
	}
	switch {
	case !strings.HasPrefix(low, "path/to") && !strings.HasPrefix(low, "/path/to"):
		return in // a concrete path of the page (/etc/passwd, src/*.c)
	case ext(".tar.gz", ".tgz", ".tar.gz]", ".tar[.gz|.bz2|.xz]"):
		return "a.tar.gz"
	case ext(".tar.bz2", ".tbz", ".tbz2"):
		return "a.tar.bz2"
	case ext(".tar.xz", ".txz"):
		return "a.tar.xz"
	case ext(".tar.zst"):
		return "a.tar.zst"
	case ext(".tar"):
		return "a.tar"
	case ext(".zip", ".jar", ".apk", ".whl"):
		return nth("zip", "a.zip", "b.zip")
	case ext(".7z"):
		return "a.7z"
	case ext(".gz"):
		return "f.gz"
	case ext(".bz2"):
		return "f.bz2"
	case ext(".xz", ".lzma"):
		return "f.xz"
	case ext(".zst"):
		return "f.zst"
	case ext(".lz4"):
		return "f.lz4"
	case ext(".json"):
		return nth("json", "data.json", "other.json")
	case ext(".yaml", ".yml"):
		return nth("yaml", "config.yaml", "other.yaml")
	case ext(".csv", ".tsv"):
		return "data.csv"
	case ext(".log"):
		return "app.log"
	case ext(".md"):
		return "README.md"
	case ext(".diff", ".patch"):
		return "patch.diff"
	case ext(".sh", ".bash"):
		return "script.sh"
	case ext(".py"):
		return "app.py"
	case ext(".go"):
		return "main.go"
	case ext(".js", ".ts"):
		return "index.js"
	case ext(".c", ".h", ".cpp"):
		return "main.c"
	case ext(".html", ".htm"):
		return "index.html"
	case ext(".xml"):
		return "data.xml"
	case ext(".png", ".jpg", ".jpeg", ".gif"):
		return "image.png"
	case ext(".key") || strings.Contains(base, "private") && strings.Contains(base, "key"):
		return "key.pem"
	case ext(".csr"):
		return "req.csr"
	case ext(".der"):
		return "cert.der"
	case ext(".pem", ".crt", ".cer", ".cert") || strings.Contains(base, "certificate"):
		return "cert.pem"
	case ext(".sha256", ".sha1", ".sha512", ".md5", ".b2", ".sha224", ".sha384"):
		return "notes.txt" + base[strings.LastIndexByte(base, '.'):]
	case ext(".deb"):
		return "pkg.deb"
	case ext(".o", ".so", ".a", ".elf", ".out", ".exe") || strings.Contains(base, "binary") || strings.Contains(base, "executable") || base == "program":
		return "bin/app"
	case ext(".txt"):
		return nth("file", "notes.txt", "other.txt", "README.md")
	case strings.Contains(base, "symlink") || strings.Contains(base, "link"):
		return "link"
	case strings.Contains(base, "archive"):
		return "a.tar"
	case strings.Contains(base, "compressed"):
		return "f.gz"
	case strings.Contains(base, "device"):
		return "/dev/sda"
	case strings.Contains(base, "pipe") || strings.Contains(base, "fifo"):
		return "fifo"
	case strings.Contains(base, "repo") && !strings.Contains(base, "file"):
		return "."
	case strings.Contains(base, "output") || strings.Contains(base, "new") || strings.Contains(base, "target") ||
		strings.Contains(base, "destination") || strings.Contains(base, "dest"):
		if strings.Contains(base, "dir") || strings.Contains(base, "folder") {
			return "out"
		}
		return "out.txt"
	case strings.Contains(base, "dir") || strings.Contains(base, "folder") || strings.Contains(base, "mount") || strings.HasSuffix(low, "/"):
		return nth("dir", "src", "docs")
	case strings.Contains(base, "config"):
		return "config.yaml"
	case strings.Contains(base, "script"):
		return "script.sh"
	default:
		return nth("file", "notes.txt", "other.txt", "README.md")
	}
}

// word maps a non-path placeholder to a value; unknown ones stay as
// written (they are example values: 8.8.8.8, *.ext, 10).
func word(in string) string {
	low := strings.ToLower(in)
	key := strings.Trim(low, "_-0123456789")
	if i := strings.IndexByte(in, '@'); i > 0 && !strings.ContainsAny(in, " '") {
		return word(in[:i]) + "@" + word(in[i+1:])
	}
	if v, ok := words[key]; ok {
		return v
	}
	for _, kv := range contains {
		if strings.Contains(key, kv[0]) {
			return kv[1]
		}
	}
	// A description of one value ({{device number}}) is one word; example
	// text ({{Hello World}}, {{find .}}) stays as written.
	if strings.Trim(in, "abcdefghijklmnopqrstuvwxyz_ ") == "" {
		return strings.ReplaceAll(in, " ", "_")
	}
	return in
}

var words = map[string]string{
	"command": "ls", "program": "ls", "cmd": "ls", "executable": "ls",
	"file": "notes.txt", "filename": "notes.txt", "input_file": "notes.txt", "file1": "notes.txt", "file2": "other.txt",
	"output_file": "out.txt", "directory": "src", "dir": "src",
	"package": "requests", "package_name": "requests", "gem_name": "rake", "module_name": "ext4", "module": "ext4",
	"branch": "feature", "branch_name": "feature", "new_branch_name": "topic", "base_branch": "main", "target_branch": "main",
	"commit": "HEAD~1", "commit_hash": "HEAD~1", "commit_id": "HEAD~1", "tree-ish": "HEAD", "tree-ish1": "HEAD~1", "tree-ish2": "HEAD",
	"revision": "HEAD", "rev": "HEAD", "object": "HEAD", "ref": "HEAD", "reference": "HEAD",
	"remote_name": "origin", "remote": "origin", "origin": "origin",
	"tag": "v1.0", "tag_name": "v1.0",
	"remote_repository_location": "https://example.com/repo.git", "repository_url": "https://example.com/repo.git",
	"url": "https://example.com/", "new_url": "https://example.com/new.git",
	"host": "example.com", "hostname": "example.com", "remote_host": "example.com", "server": "example.com", "domain": "example.com",
	"ip_address": "192.0.2.1", "destination_ip": "192.0.2.1", "ip": "192.0.2.1", "address": "192.0.2.1",
	"ethx": "eth0", "interface": "eth0", "interface_name": "eth0", "port": "8080",
	"username": "alice", "user": "alice", "owner": "alice", "group": "staff",
	"pid": "1", "process_id": "1", "process_name": "bash", "name": "name",
	"pattern": "TODO", "search_pattern": "TODO", "regex": "TODO", "search_string": "TODO", "string": "TODO",
	"text": "TODO", "query": "TODO", "keyword": "TODO",
	"count": "5", "n": "5", "number": "5", "seconds": "5", "lines": "5", "width": "80",
	"container": "web", "container_name": "web", "image": "nginx", "image_name": "nginx", "pod_name": "web-1", "pod": "web-1",
	"namespace": "default", "resource_type": "pods", "resource_name": "web", "node_name": "node1", "volume_name": "data",
	"pr_number": "123", "issue_number": "42", "repository": "octo/hello", "version": "1.0.0", "message": "msg",
	"unit": "ssh.service", "service": "ssh.service", "value": "value", "year": "2024", "prefix": "pre",
	"separator": ",", "subcommand": "log", "workflow_run_number": "7", "endpoint": "repos/octo/hello",
	"arguments_source": "ls", "key": "user.name", "variable": "HOME", "signal": "TERM", "mountpoint": "/mnt",
	"workflow_name": "ci.yml", "id": "1", "job_id": "1", "run_id": "1",
}

var contains = [][2]string{
	{"branch", "feature"}, {"commit", "HEAD~1"}, {"pattern", "TODO"}, {"regex", "TODO"},
	{"host", "example.com"}, {"domain", "example.com"}, {"url", "https://example.com/"},
	{"user", "alice"}, {"container", "web"}, {"pod", "web-1"}, {"image", "nginx"},
	{"package", "requests"}, {"file", "notes.txt"}, {"directory", "src"},
}
