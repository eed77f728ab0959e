package flagspec

import (
	"strings"
	"sync"
)

// openssl: the commands that print or check (x509, req, crl, pkcs7, rsa,
// ec, pkey, verify, dgst and the digest names, enc/base64 and the cipher
// names to stdout, rand, prime, passwd, version, list, ciphers, asn1parse,
// errstr, speed, and key generation to stdout). OpenSSL options are whole
// words with one dash (a second dash is accepted), never abbreviated.
// -out, -keyout, -writerand, -CAcreateserial and -CAserial write files;
// -engine, -provider, -provider-path and -config load code or a
// configuration that can; s_client, s_server, s_time and ocsp reach the
// network at an address of the command's choosing.

// openSSLOpt is one option: the number of values it takes and whether its
// value is a file read.
type openSSLOpt struct {
	vals int
	read bool
}

// openSSLCommon are accepted by every listed command.
var openSSLCommon = map[string]openSSLOpt{
	"help": {}, "in": {1, true}, "inform": {1, false}, "outform": {1, false}, "noout": {}, "text": {},
	"passin": {1, false}, "passout": {1, false}, "nameopt": {1, false}, "rand": {1, true},
	"propquery": {1, false}, "quiet": {},
}

// openSSLDenied are never read-only, with the reason.
var openSSLDenied = map[string]string{
	"out": "writes a file", "keyout": "writes a key file", "writerand": "writes a file",
	"CAcreateserial": "writes a serial file", "CAserial": "writes a serial file",
	"engine": "loads an engine (code)", "provider": "loads a provider (code)",
	"provider-path": "loads providers (code)", "config": "reads a configuration that can load code",
	"keygen_engine": "loads an engine (code)", "ssl_client_engine": "loads an engine (code)",
}

func opts(read []string, plain []string, withVal []string) map[string]openSSLOpt {
	m := map[string]openSSLOpt{}
	for _, o := range plain {
		m[o] = openSSLOpt{}
	}
	for _, o := range withVal {
		m[o] = openSSLOpt{vals: 1}
	}
	for _, o := range read {
		m[o] = openSSLOpt{vals: 1, read: true}
	}
	return m
}

// openSSLCommands: per command, its options, whether operands are files
// read, and whether digest or cipher names are options (-sha256, -aes256).
// It is built on first use, not at package initialisation (each process
// start would pay for it); TestLazyTablesCompile forces it.
var openSSLCommands = sync.OnceValue(func() map[string]openSSLCommand {
	return map[string]openSSLCommand{
		"x509": {opts: opts([]string{"CAfile", "CApath"}, []string{"subject", "issuer", "dates", "startdate", "enddate",
			"serial", "fingerprint", "pubkey", "modulus", "email", "ocsp_uri", "ocspid", "purpose", "hash", "subject_hash",
			"issuer_hash", "subject_hash_old", "issuer_hash_old", "alias", "nocert", "C", "noout", "text", "trustout",
			"ext_print", "pkeyopt_print"}, []string{"certopt", "checkend", "checkhost", "checkemail", "checkip", "ext", "multivalue-rdn"}),
			digests: true, noOperand: true},
		"req": {opts: opts(nil, []string{"verify", "pubkey", "subject", "modulus", "batch", "noout", "text", "utf8"},
			[]string{"reqopt"}), noOperand: true},
		"crl": {opts: opts([]string{"CAfile", "CApath"}, []string{"hash", "hash_old", "issuer", "lastupdate", "nextupdate",
			"fingerprint", "crlnumber", "verify", "noout", "text"}, nil), digests: true, noOperand: true},
		"pkcs7": {opts: opts(nil, []string{"print", "print_certs", "quiet"}, nil), noOperand: true},
		"rsa": {opts: opts(nil, []string{"pubin", "pubout", "check", "modulus", "RSAPublicKey_in", "RSAPublicKey_out",
			"text_pub", "traditional"}, nil), noOperand: true},
		"ec": {opts: opts(nil, []string{"pubin", "pubout", "check", "param_out", "no_public", "text_pub"},
			[]string{"param_enc", "conv_form"}), noOperand: true},
		"pkey": {opts: opts(nil, []string{"pubin", "pubout", "check", "pubcheck", "text_pub", "traditional", "ec_param_enc"},
			[]string{"ec_conv_form", "ec_param_enc"}), noOperand: true},
		"verify": {opts: opts([]string{"CAfile", "CApath", "CAstore", "untrusted", "trusted", "CRLfile"},
			[]string{"verbose", "show_chain", "crl_check", "crl_check_all", "partial_chain", "no-CAfile", "no-CApath",
				"no-CAstore", "x509_strict", "check_ss_sig", "ignore_critical", "issuer_checks", "policy_check",
				"explicit_policy", "inhibit_any", "inhibit_map", "use_deltas", "extended_crl", "suiteB_128",
				"suiteB_128_only", "suiteB_192", "trusted_first", "no_alt_chains", "allow_proxy_certs"},
			[]string{"purpose", "attime", "verify_hostname", "verify_email", "verify_ip", "verify_depth", "verify_name",
				"auth_level", "policy", "vfyopt"}), fileOps: true},
		"dgst": {opts: opts([]string{"sign", "verify", "prverify", "signature", "keyform"}, []string{"hex", "c", "r",
			"binary", "list", "xoflen", "debug"}, []string{"hmac", "mac", "macopt", "sigopt", "xoflen"}), fileOps: true, digests: true},
		"enc": {opts: opts([]string{"kfile"}, []string{"d", "e", "a", "base64", "A", "salt", "nosalt", "p", "P", "pbkdf2",
			"nopad", "v", "none", "list", "ciphers", "z"}, []string{"k", "pass", "md", "S", "K", "iv", "iter", "bufsize", "saltlen"}),
			ciphers: true, noOperand: true},
		"rand":    {opts: opts(nil, []string{"hex", "base64"}, nil), anyOps: true},
		"prime":   {opts: opts(nil, []string{"hex", "generate", "safe"}, []string{"bits", "checks"}), anyOps: true},
		"passwd":  {opts: opts(nil, []string{"1", "5", "6", "apr1", "aixmd5", "crypt", "stdin", "noverify", "table", "reverse"}, []string{"salt"}), anyOps: true},
		"version": {opts: opts(nil, []string{"a", "b", "d", "e", "f", "o", "p", "r", "v", "c", "m"}, nil), noOperand: true},
		"list": {opts: opts(nil, []string{"1", "verbose", "commands", "standard-commands", "digest-commands",
			"digest-algorithms", "cipher-commands", "cipher-algorithms", "public-key-algorithms", "public-key-methods",
			"disabled", "kdf-algorithms", "mac-algorithms", "random-instances", "random-generators", "encoders",
			"decoders", "key-managers", "key-exchange-algorithms", "kem-algorithms", "signature-algorithms",
			"asymcipher-algorithms", "store-loaders", "providers", "engines", "objects", "all-algorithms", "tls-signature-algorithms"},
			[]string{"options", "select"}), noOperand: true},
		"ciphers": {opts: opts(nil, []string{"v", "V", "s", "tls1", "tls1_1", "tls1_2", "tls1_3", "stdname", "psk", "srp"},
			[]string{"convert", "ciphersuites"}), anyOps: true},
		"asn1parse": {opts: opts([]string{"oid", "genconf"}, []string{"i", "dump", "strictpem", "noout"},
			[]string{"dlimit", "offset", "length", "strparse", "genstr", "item"}), noOperand: true},
		"errstr": {anyOps: true},
		"speed": {opts: opts(nil, []string{"elapsed", "mr", "decrypt", "aead", "mlock", "testmode"},
			[]string{"seconds", "bytes", "multi", "evp", "hmac", "cmac", "primes", "async_jobs", "mb"}), anyOps: true},
		"genrsa": {opts: opts(nil, []string{"3", "F4", "f4", "verbose", "traditional"}, []string{"primes"}), ciphers: true, anyOps: true},
		"genpkey": {opts: opts([]string{"paramfile"}, []string{"genparam", "text", "verbose"},
			[]string{"algorithm", "pkeyopt", "pass", "cipher"}), ciphers: true, noOperand: true},
		"ecparam": {opts: opts(nil, []string{"list_curves", "genkey", "check", "check_named", "no_seed", "noout", "text"},
			[]string{"name", "param_enc", "conv_form"}), noOperand: true},
		"dhparam": {opts: opts(nil, []string{"check", "dsaparam", "2", "3", "5", "verbose"}, nil), anyOps: true},
		"pkcs12": {opts: opts([]string{"CAfile", "CApath"}, []string{"info", "nokeys", "nocerts", "clcerts", "cacerts",
			"nodes", "noenc", "legacy", "nomacver"}, []string{"password"}), noOperand: true},
	}
})

// openSSLCommand is one entry of openSSLCommands.
type openSSLCommand struct {
	opts      map[string]openSSLOpt
	fileOps   bool
	anyOps    bool
	digests   bool
	ciphers   bool
	noOperand bool
}

// openSSLDigests are the digest commands ("openssl sha256 f" is "openssl dgst -sha256 f").
var openSSLDigests = map[string]bool{
	"md5": true, "sha1": true, "sha224": true, "sha256": true, "sha384": true, "sha512": true, "sha512-224": true,
	"sha512-256": true, "sha3-224": true, "sha3-256": true, "sha3-384": true, "sha3-512": true, "shake128": true,
	"shake256": true, "sm3": true, "blake2b512": true, "blake2s256": true, "ripemd160": true, "rmd160": true, "md4": true,
}

// openSSLCipherPrefixes recognise cipher names used as options or commands
// (-aes-256-cbc, aes256, -chacha20).
var openSSLCipherPrefixes = []string{"aes", "aria", "bf", "camellia", "cast", "chacha20", "des", "idea", "rc2", "rc4", "rc5", "seed", "sm4"}

func isCipherName(n string) bool {
	for _, p := range openSSLCipherPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

var openSSLSpec = &spec{anyArgs: true, check: checkOpenSSL}

func checkOpenSSL(st *state) {
	args := st.argv[1:]
	if len(args) == 0 {
		st.fail("openssl: the interactive prompt runs commands")
		return
	}
	cmd := args[0]
	name := cmd
	switch {
	case cmd == "base64":
		name = "enc"
	case openSSLDigests[cmd]:
		name = "dgst"
	case isCipherName(cmd):
		name = "enc"
	}
	st.v.Subcommand = cmd
	def, ok := openSSLCommands()[name]
	if !ok {
		switch cmd {
		case "s_client", "s_server", "s_time", "ocsp":
			st.v.Network = NetEgress
			st.fail("openssl " + cmd + " connects to an address of the command's choosing (network egress)")
		case "help", "-help", "--help", "-version", "--version":
			return
		default:
			st.fail("openssl " + printable(cmd) + " is not in the read-only vocabulary")
		}
		return
	}
	var ops []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if strings.Contains(a, Dynamic) {
			st.fail("openssl: the word " + printable(a) + " is only known at run time")
			return
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			ops = append(ops, a)
			continue
		}
		if a == "--" {
			ops = append(ops, rest[i+1:]...)
			break
		}
		o := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if why, bad := openSSLDenied[o]; bad {
			if o == "out" || o == "keyout" || o == "writerand" {
				if i+1 < len(rest) {
					st.write(rest[i+1])
				}
				// An allow rule spells the file out: the whole command,
				// since the scan stops here.
				st.codeWord(len(st.argv) - 1)
			}
			st.fail("openssl " + cmd + ": -" + o + " " + why)
			return
		}
		d, ok := def.opts[o]
		if !ok {
			d, ok = openSSLCommon[o]
		}
		if !ok && (def.digests && (openSSLDigests[o] || strings.HasPrefix(o, "sha")) || def.ciphers && isCipherName(o)) {
			ok = true
		}
		if !ok {
			st.fail("openssl " + cmd + ": option -" + printable(o) + " is not in the read-only vocabulary")
			return
		}
		if d.vals > 0 {
			if i+d.vals >= len(rest) {
				st.fail("openssl " + cmd + ": option -" + o + " needs a value")
				return
			}
			v := rest[i+1]
			if d.read {
				st.read(v)
			}
			if o == "passin" || o == "passout" || o == "pass" || o == "password" {
				if f, isFile := strings.CutPrefix(v, "file:"); isFile {
					st.read(f)
				}
			}
			i += d.vals
		}
	}
	switch {
	case def.fileOps:
		for _, o := range ops {
			st.read(o)
		}
	case def.anyOps:
	case len(ops) > 0:
		st.fail("openssl " + cmd + ": operand " + printable(ops[0]) + " is not modelled")
	}
}

func init() {
	register(openSSLSpec, "openssl")
	subcommandPrograms["openssl"] = true
}
