// Package buildroot holds Hark's BR2_EXTERNAL tree (defconfigs, board
// files, the hark, hark-system and whisper-cpp packages) and the tests that
// check it without running Buildroot: Kconfig symbols, the files the
// defconfigs name, the packages' make files, the scripts, the SD card
// layout (with genimage, when installed) and the post-image step that signs
// the update bundle (with rauc, when installed).
//
// With BUILDROOT_DIR pointing at a Buildroot checkout the symbols and files
// are checked against it instead of testdata/, the defconfigs are loaded by
// Buildroot's own Kconfig, and utils/check-package runs on the packages.
// With -update as well, testdata/upstream-*.txt are regenerated from it.
package buildroot

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

var updateTestdata = flag.Bool("update", false, "regenerate testdata/upstream-*.txt from $BUILDROOT_DIR")

const (
	externalVar      = "$(BR2_EXTERNAL_HARK_PATH)"
	upstreamSymsFile = "testdata/upstream-symbols.txt"
	upstreamFileList = "testdata/upstream-files.txt"
)

// The board directories and what each defconfig must say about them.
var boards = []struct {
	dir, defconfig, cpu, uboot string
}{
	{"rpi4-64", "hark_rpi4_64_defconfig", "BR2_cortex_a72", "rpi_4"},
	{"rpi5", "hark_rpi5_defconfig", "BR2_cortex_a76", "rpi_arm64"},
	{"rpizero2w-64", "hark_rpizero2w_64_defconfig", "BR2_cortex_a53", "rpi_arm64"},
}

// --- Parsing ------------------------------------------------------------------

type defLine struct {
	sym, value string
	unset      bool // "# SYM is not set"
	line       int
}

var (
	defSetRE   = regexp.MustCompile(`^(BR2_\w+)=(.*)$`)
	defUnsetRE = regexp.MustCompile(`^# (BR2_\w+) is not set$`)
	symRE      = regexp.MustCompile(`\bBR2_\w+`)
	kconfDefRE = regexp.MustCompile(`^\s*(?:menu)?config\s+(BR2_\w+)\s*$`)
)

func parseDefconfig(t *testing.T, path string) []defLine {
	t.Helper()
	var out []defLine
	for i, l := range readLines(t, path) {
		if m := defSetRE.FindStringSubmatch(l); m != nil {
			out = append(out, defLine{sym: m[1], value: m[2], line: i + 1})
		} else if m := defUnsetRE.FindStringSubmatch(l); m != nil {
			out = append(out, defLine{sym: m[1], unset: true, line: i + 1})
		} else if l != "" && !strings.HasPrefix(l, "#") {
			t.Errorf("%s:%d: not a defconfig line: %q", path, i+1, l)
		}
	}
	return out
}

// defconfigValues maps each symbol to its value, unquoted ("" when unset).
func defconfigValues(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, d := range parseDefconfig(t, path) {
		if _, dup := m[d.sym]; dup {
			t.Errorf("%s:%d: %s is set twice", path, d.line, d.sym)
		}
		m[d.sym] = unquote(d.value)
	}
	return m
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

type symRef struct {
	sym, where string
}

// kconfig is what one of our Config.in files defines and refers to.
type kconfig struct {
	defined []string
	refs    []symRef
	sources []string // paths of `source` lines, unexpanded
}

// parseKconfig reads a Config.in of ours: symbols defined by config and
// menuconfig, symbols referred to by depends on, select, imply, default,
// if, visible if and range lines, and sourced files. Help text is skipped.
func parseKconfig(t *testing.T, path string) kconfig {
	t.Helper()
	var k kconfig
	lines := readLines(t, path)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if trimmed == "help" || trimmed == "---help---" {
			indent := leadingWidth(l)
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || leadingWidth(lines[i+1]) > indent) {
				i++
			}
			continue
		}
		where := fmt.Sprintf("%s:%d", path, i+1)
		if m := kconfDefRE.FindStringSubmatch(l); m != nil {
			k.defined = append(k.defined, m[1])
			continue
		}
		word, rest, _ := strings.Cut(trimmed, " ")
		switch word {
		case "source":
			k.sources = append(k.sources, unquote(strings.TrimSpace(rest)))
		case "depends", "select", "imply", "default", "if", "visible", "range":
			// Drop a trailing comment; strings hold no symbols we need.
			expr, _, _ := strings.Cut(rest, "#")
			for _, s := range symRE.FindAllString(expr, -1) {
				k.refs = append(k.refs, symRef{s, where})
			}
		}
	}
	return k
}

func leadingWidth(l string) int {
	w := 0
	for _, r := range l {
		switch r {
		case '\t':
			w += 8 - w%8
		case ' ':
			w++
		default:
			return w
		}
	}
	return w
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

func kconfigFiles(t *testing.T) []string {
	return append([]string{"Config.in"}, glob(t, "package/*/Config.in")...)
}

func defconfigs(t *testing.T) []string {
	t.Helper()
	d := glob(t, "configs/*_defconfig")
	if len(d) == 0 {
		t.Fatal("no defconfigs in configs/")
	}
	return d
}

// ourSymbols is every symbol defined in this tree's Config.in files.
func ourSymbols(t *testing.T) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, f := range kconfigFiles(t) {
		for _, s := range parseKconfig(t, f).defined {
			if m[s] {
				t.Errorf("%s: %s is defined twice in this tree", f, s)
			}
			m[s] = true
		}
	}
	return m
}

// Names that look like symbols but are Buildroot's environment.
var notSymbols = map[string]bool{
	"BR2_CONFIG":             true,
	"BR2_EXTERNAL":           true,
	"BR2_EXTERNAL_HARK_PATH": true,
	"BR2_EXTERNAL_HARK_DESC": true,
	"BR2_VERSION":            true,
	"BR2_VERSION_FULL":       true,
}

// references collects every symbol this tree uses: Config.in expressions,
// defconfig lines, and names in the make files and scripts.
func references(t *testing.T) []symRef {
	t.Helper()
	var refs []symRef
	for _, f := range kconfigFiles(t) {
		refs = append(refs, parseKconfig(t, f).refs...)
	}
	for _, f := range defconfigs(t) {
		for _, d := range parseDefconfig(t, f) {
			refs = append(refs, symRef{d.sym, fmt.Sprintf("%s:%d", f, d.line)})
		}
	}
	var code []string
	code = append(code, glob(t, "package/*/*.mk")...)
	code = append(code, "external.mk")
	code = append(code, scripts(t)...)
	for _, f := range code {
		for i, l := range readLines(t, f) {
			for _, s := range symRE.FindAllString(l, -1) {
				if !notSymbols[s] {
					refs = append(refs, symRef{s, fmt.Sprintf("%s:%d", f, i+1)})
				}
			}
		}
	}
	return refs
}

// upstreamRefs is the references to symbols this tree does not define.
func upstreamRefs(t *testing.T) []symRef {
	t.Helper()
	ours := ourSymbols(t)
	var out []symRef
	for _, r := range references(t) {
		if !ours[r.sym] {
			out = append(out, r)
		}
	}
	return out
}

// scripts is every file in the tree that starts with #!.
func scripts(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, 2)
		n, _ := f.Read(head)
		if n == 2 && string(head) == "#!" {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pathOptions are the defconfig options whose values are files or
// directories (space-separated lists for some).
var pathOptions = map[string]bool{
	"BR2_GLOBAL_PATCH_DIR":                            true,
	"BR2_ROOTFS_OVERLAY":                              true,
	"BR2_ROOTFS_POST_BUILD_SCRIPT":                    true,
	"BR2_ROOTFS_POST_FAKEROOT_SCRIPT":                 true,
	"BR2_ROOTFS_POST_IMAGE_SCRIPT":                    true,
	"BR2_ROOTFS_USERS_TABLES":                         true,
	"BR2_ROOTFS_DEVICE_TABLE":                         true,
	"BR2_LINUX_KERNEL_CONFIG_FRAGMENT_FILES":          true,
	"BR2_LINUX_KERNEL_CUSTOM_CONFIG_FILE":             true,
	"BR2_LINUX_KERNEL_CUSTOM_DTS_PATH":                true,
	"BR2_TARGET_UBOOT_CONFIG_FRAGMENT_FILES":          true,
	"BR2_TARGET_UBOOT_CUSTOM_CONFIG_FILE":             true,
	"BR2_TARGET_UBOOT_DEFAULT_ENV_FILE":               true,
	"BR2_PACKAGE_RPI_FIRMWARE_CONFIG_FILE":            true,
	"BR2_PACKAGE_RPI_FIRMWARE_CMDLINE_FILE":           true,
	"BR2_PACKAGE_RPI_FIRMWARE_EXTRA_FILES":            true,
	"BR2_PACKAGE_HOST_UBOOT_TOOLS_BOOT_SCRIPT_SOURCE": true,
	"BR2_PACKAGE_HOST_UBOOT_TOOLS_ENVIMAGE_SOURCE":    true,
	"BR2_PACKAGE_BUSYBOX_CONFIG":                      true,
	"BR2_PACKAGE_BUSYBOX_CONFIG_FRAGMENT_FILES":       true,
	"BR2_PACKAGE_HARK_WHISPER_MODEL":                  true,
	"BR2_PACKAGE_HARK_VAD_MODEL":                      true,
	"BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING":            true,
	"BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_KEY":        true,
	"BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_CERT":       true,
}

type pathRef struct {
	path  string // in this tree (expanded) or relative to Buildroot's top
	ours  bool
	where string
}

// defconfigPaths is every file or directory the defconfigs name.
func defconfigPaths(t *testing.T) []pathRef {
	t.Helper()
	var out []pathRef
	for _, f := range defconfigs(t) {
		for _, d := range parseDefconfig(t, f) {
			v := unquote(d.value)
			if d.unset || v == "" || (!pathOptions[d.sym] && !strings.Contains(v, externalVar)) {
				continue
			}
			for _, p := range strings.Fields(v) {
				where := fmt.Sprintf("%s:%d (%s)", f, d.line, d.sym)
				if after, ok := strings.CutPrefix(p, externalVar+"/"); ok {
					out = append(out, pathRef{filepath.FromSlash(after), true, where})
				} else if strings.Contains(p, "$(") || strings.Contains(p, "://") || strings.HasPrefix(p, "pkcs11:") {
					t.Errorf("%s: cannot check %q", where, p)
				} else if filepath.IsAbs(p) {
					t.Errorf("%s: %q is an absolute path; defconfigs must not depend on this machine", where, p)
				} else {
					out = append(out, pathRef{p, false, where})
				}
			}
		}
	}
	return out
}

// --- Symbols and files ----------------------------------------------------------

func TestSymbolsExist(t *testing.T) {
	up := loadUpstream(t)
	refs := upstreamRefs(t)
	if len(refs) < 50 {
		t.Fatalf("only %d references to Buildroot symbols found; the parser is broken", len(refs))
	}
	for _, r := range refs {
		if !up.symbols[r.sym] {
			t.Errorf("%s: %s is neither defined in this tree nor in %s", r.where, r.sym, up.name)
		}
	}
	// Sanity of the checker: a misspelt symbol must not pass.
	if up.symbols["BR2_PACKAGE_RAUCC"] || up.symbols["BR2_cortex_a77x"] {
		t.Error("the upstream symbol list accepts made-up symbols")
	}
}

func TestOurSymbolNames(t *testing.T) {
	// Our options are named after their package or the tree (BR2_HARK_).
	for _, f := range kconfigFiles(t) {
		for _, s := range parseKconfig(t, f).defined {
			if f == "Config.in" {
				if !strings.HasPrefix(s, "BR2_HARK_") {
					t.Errorf("%s: %s: top-level options start with BR2_HARK_", f, s)
				}
				continue
			}
			pkg := filepath.Base(filepath.Dir(f))
			if want := "BR2_PACKAGE_" + upper(pkg); s != want && !strings.HasPrefix(s, want+"_") {
				t.Errorf("%s: %s does not start with %s", f, s, want)
			}
		}
	}
}

func TestDefconfigFilesExist(t *testing.T) {
	up := loadUpstream(t)
	paths := defconfigPaths(t)
	ours := 0
	for _, p := range paths {
		if p.ours {
			ours++
			if _, err := os.Stat(p.path); err != nil {
				t.Errorf("%s: %v", p.where, err)
			}
		} else if !up.hasFile(p.path) {
			t.Errorf("%s: %s is not in %s", p.where, p.path, up.name)
		}
	}
	if ours < 7*len(boards) {
		t.Errorf("only %d files of this tree named by the defconfigs; the parser is broken", ours)
	}
}

func TestKconfigSources(t *testing.T) {
	k := parseKconfig(t, "Config.in")
	sourced := map[string]bool{}
	for _, s := range k.sources {
		p, ok := strings.CutPrefix(s, "$BR2_EXTERNAL_HARK_PATH/")
		if !ok {
			t.Errorf("Config.in: source %q does not start with $BR2_EXTERNAL_HARK_PATH/", s)
			continue
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Config.in: source %q: %v", s, err)
		}
		sourced[p] = true
	}
	for _, f := range glob(t, "package/*/Config.in") {
		if !sourced[filepath.ToSlash(f)] {
			t.Errorf("Config.in does not source %s", f)
		}
	}
}

func TestExternalDesc(t *testing.T) {
	fields := map[string]string{}
	for _, l := range readLines(t, "external.desc") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Errorf("external.desc: %q is not key: value", l)
			continue
		}
		fields[k] = strings.TrimSpace(v)
	}
	if fields["name"] != "HARK" {
		t.Errorf("external.desc: name is %q, want HARK (the tree is BR2_EXTERNAL_HARK_PATH everywhere)", fields["name"])
	}
	if d := fields["desc"]; d == "" || len(d) > 40 {
		t.Errorf("external.desc: desc %q should be a short line (at most 40 characters)", d)
	}
}

// --- Packages -----------------------------------------------------------------

var (
	mkAssignRE  = regexp.MustCompile(`^([A-Za-z0-9_]+)\s*(?:\+|\?|:{1,2})?=`)
	mkDefineRE  = regexp.MustCompile(`^define\s+([A-Za-z0-9_]+)`)
	mkRefRE     = regexp.MustCompile(`\$\(([A-Za-z0-9_]+)\)`)
	mkEvalRE    = regexp.MustCompile(`^\$\(eval \$\((host-)?([a-z0-9]+)-package\)\)$`)
	infraByVars = []struct {
		suffix string
		infra  []string
	}{
		{"_GOMOD", []string{"golang"}},
		{"_TAGS", []string{"golang"}},
		{"_BUILD_TARGETS", []string{"golang"}},
		{"_GO_ENV", []string{"golang"}},
		{"_CONF_OPTS", []string{"cmake", "autotools", "meson", "qmake"}},
		{"_SUPPORTS_IN_SOURCE_BUILD", []string{"cmake"}},
	}
	knownInfra = []string{"generic", "autotools", "cmake", "meson", "golang", "cargo", "python", "kconfig", "luarocks", "perl", "qmake", "waf", "virtual", "rebar"}
	// Buildroot-wide variables a package .mk may append to.
	globalMkVars = map[string]bool{"BR_NO_CHECK_HASH_FOR": true}
)

func upper(pkg string) string {
	return strings.ToUpper(strings.ReplaceAll(pkg, "-", "_"))
}

// mkStatements joins continuation lines and drops comments and blanks.
type mkStatement struct {
	text string
	line int
}

func mkStatements(t *testing.T, path string) []mkStatement {
	t.Helper()
	var out []mkStatement
	lines := readLines(t, path)
	for i := 0; i < len(lines); i++ {
		start := i
		l := lines[i]
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		out = append(out, mkStatement{l, start + 1})
	}
	return out
}

// mkVars is the value of each variable a .mk sets, += appended.
func mkVars(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, s := range mkStatements(t, path) {
		if r := mkAssignRE.FindStringSubmatch(s.text); r != nil {
			op, v, _ := strings.Cut(s.text, "=")
			v = strings.TrimSpace(v)
			if strings.HasSuffix(op, "+") && m[r[1]] != "" {
				v = m[r[1]] + " " + v
			}
			m[r[1]] = v
		}
	}
	return m
}

func TestPackages(t *testing.T) {
	dirs := glob(t, "package/*")
	if len(dirs) < 3 {
		t.Fatalf("packages: %v; want hark, hark-system, whisper-cpp at least", dirs)
	}
	prefixes := map[string]string{} // package -> prefix
	for _, d := range dirs {
		prefixes[filepath.Base(d)] = upper(filepath.Base(d)) + "_"
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		prefix := prefixes[name]
		t.Run(name, func(t *testing.T) {
			if name != strings.ToLower(name) || strings.ContainsAny(name, "_ ") {
				t.Errorf("package directory %q: use lower case and dashes", name)
			}
			mk := filepath.Join(d, name+".mk")
			if _, err := os.Stat(mk); err != nil {
				t.Fatalf("package/%s has no %s.mk: %v", name, name, err)
			}
			k := parseKconfig(t, filepath.Join(d, "Config.in"))
			if !slices.Contains(k.defined, "BR2_PACKAGE_"+upper(name)) {
				t.Errorf("%s/Config.in does not define BR2_PACKAGE_%s", d, upper(name))
			}
			checkMkHeader(t, mk, name)

			stmts := mkStatements(t, mk)
			inDefine := false
			var assigned []string
			for _, s := range stmts {
				text := strings.TrimSpace(s.text)
				where := fmt.Sprintf("%s:%d", mk, s.line)
				if inDefine {
					if text == "endef" {
						inDefine = false
					}
					continue
				}
				var v string
				if m := mkDefineRE.FindStringSubmatch(text); m != nil {
					inDefine = true
					v = m[1]
				} else if m := mkAssignRE.FindStringSubmatch(s.text); m != nil {
					v = m[1]
				} else {
					continue
				}
				// A := line is expanded as it is read: the variables it
				// uses must be set by then (not by the $(eval) at the end).
				if m := mkAssignRE.FindStringSubmatch(s.text); m != nil && strings.Contains(s.text[:len(m[0])], ":=") {
					for _, ref := range mkRefRE.FindAllStringSubmatch(s.text[len(m[0]):], -1) {
						if strings.HasPrefix(ref[1], prefix) && !slices.Contains(assigned, ref[1]) {
							t.Errorf("%s: %s uses %s, which is not set yet when the line is read", where, v, ref[1])
						}
					}
				}
				assigned = append(assigned, v)
				if globalMkVars[v] {
					continue
				}
				if !strings.HasPrefix(v, prefix) {
					t.Errorf("%s: %s does not start with %s", where, v, prefix)
				}
				for other, p := range prefixes {
					if other != name && len(p) > len(prefix) && strings.HasPrefix(v, p) {
						t.Errorf("%s: %s belongs to package %s (prefix %s)", where, v, other, p)
					}
				}
			}
			if inDefine {
				t.Errorf("%s: define without endef", mk)
			}

			var evals []mkStatement
			for _, s := range stmts {
				if strings.HasPrefix(strings.TrimSpace(s.text), "$(eval") {
					evals = append(evals, s)
				}
			}
			last := stmts[len(stmts)-1]
			m := mkEvalRE.FindStringSubmatch(strings.TrimSpace(last.text))
			if len(evals) != 1 || m == nil || evals[0] != last {
				t.Fatalf("%s: the last statement must be the only $(eval $(<infra>-package)); it is %q", mk, last.text)
			}
			infra := m[2]
			if !slices.Contains(knownInfra, infra) {
				t.Errorf("%s: %s-package is not a Buildroot package infrastructure", mk, infra)
			}
			for _, v := range assigned {
				for _, iv := range infraByVars {
					if strings.HasSuffix(v, iv.suffix) && strings.TrimSuffix(v, iv.suffix)+"_" == prefix && !slices.Contains(iv.infra, infra) {
						t.Errorf("%s: %s is a %s variable, but the package is a %s-package", mk, v, strings.Join(iv.infra, "/"), infra)
					}
				}
			}
			checkHash(t, d, name, mkVars(t, mk))
			for _, p := range regexp.MustCompile(`\$\(BR2_EXTERNAL_HARK_PATH\)/([^\s)$]+)`).FindAllStringSubmatch(readFile(t, mk), -1) {
				if _, err := os.Stat(p[1]); err != nil {
					t.Errorf("%s names %s: %v", mk, p[0], err)
				}
			}
		})
	}
}

func checkMkHeader(t *testing.T, mk, name string) {
	t.Helper()
	lines := readLines(t, mk)
	bar := strings.Repeat("#", 80)
	want := []string{bar, "#", "# " + name, "#", bar}
	if len(lines) < 5 || !slices.Equal(lines[:5], want) {
		t.Errorf("%s: does not open with Buildroot's header block for %q", mk, name)
	}
}

var hashLineRE = regexp.MustCompile(`^(md5|sha1|sha224|sha256|sha384|sha512)\s+([0-9a-f]+)\s+(\S+)$`)

// checkHash: a package that downloads something has a .hash file with
// well-formed lines, one for each license file.
func checkHash(t *testing.T, dir, name string, vars map[string]string) {
	t.Helper()
	prefix := upper(name) + "_"
	site := vars[prefix+"SITE"]
	if site == "" || vars[prefix+"SITE_METHOD"] == "local" {
		if _, err := os.Stat(filepath.Join(dir, name+".hash")); err == nil {
			t.Errorf("%s: a .hash file for a package that downloads nothing", dir)
		}
		return
	}
	hashFile := filepath.Join(dir, name+".hash")
	hashed := map[string]bool{}
	for i, l := range readLines(t, hashFile) {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		m := hashLineRE.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("%s:%d: not a hash line: %q", hashFile, i+1, l)
			continue
		}
		if m[1] == "sha256" && len(m[2]) != 64 {
			t.Errorf("%s:%d: a sha256 has 64 hex digits", hashFile, i+1)
		}
		hashed[m[3]] = true
	}
	for _, lf := range strings.Fields(vars[prefix+"LICENSE_FILES"]) {
		if !hashed[lf] {
			t.Errorf("%s: no hash for license file %s", hashFile, lf)
		}
	}
}

func TestExternalMkIncludesPackages(t *testing.T) {
	included := map[string]bool{}
	for _, s := range mkStatements(t, "external.mk") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(s.text), "include ")
		if !ok {
			continue
		}
		// $(sort $(wildcard PATTERN)) or a plain path.
		pat := strings.TrimSpace(rest)
		for _, fn := range []string{"$(sort ", "$(wildcard "} {
			if strings.HasPrefix(pat, fn) {
				pat = strings.TrimSuffix(strings.TrimPrefix(pat, fn), ")")
			}
		}
		pat, ok = strings.CutPrefix(pat, externalVar+"/")
		if !ok {
			t.Errorf("external.mk:%d: include %q is not under %s", s.line, rest, externalVar)
			continue
		}
		for _, f := range glob(t, pat) {
			included[f] = true
		}
	}
	for _, d := range glob(t, "package/*") {
		mk := filepath.Join(d, filepath.Base(d)+".mk")
		if !included[mk] {
			t.Errorf("external.mk does not include %s", mk)
		}
	}
}

// --- Scripts ------------------------------------------------------------------

func TestScripts(t *testing.T) {
	need(t, "sh")
	all := scripts(t)
	if len(all) < 3 {
		t.Fatalf("scripts: %v; want post-build.sh, post-image.sh and mixer.sh at least", all)
	}
	// Every .sh file is a script.
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".sh") && !slices.Contains(all, path) {
			t.Errorf("%s has no #! line", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	shellcheck, _ := exec.LookPath("shellcheck")
	for _, s := range all {
		fi, err := os.Stat(s)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o111 != 0o111 {
			t.Errorf("%s is not executable (mode %v)", s, fi.Mode().Perm())
		}
		shebang := strings.Fields(strings.TrimPrefix(readLines(t, s)[0], "#!"))
		var shell string
		switch {
		case len(shebang) == 1 && shebang[0] == "/bin/sh":
			shell = "sh"
		case len(shebang) == 1 && shebang[0] == "/bin/bash",
			len(shebang) == 2 && shebang[0] == "/usr/bin/env" && shebang[1] == "bash":
			shell = "bash"
		default:
			t.Errorf("%s: interpreter %v: use /bin/sh (or bash)", s, shebang)
			continue
		}
		if out, err := exec.Command(shell, "-n", s).CombinedOutput(); err != nil {
			t.Errorf("%s -n %s: %v\n%s", shell, s, err, out)
		}
		if shell == "sh" {
			// dash is stricter than bash about POSIX syntax.
			if dash, err := exec.LookPath("dash"); err == nil {
				if out, err := exec.Command(dash, "-n", s).CombinedOutput(); err != nil {
					t.Errorf("dash -n %s: %v\n%s", s, err, out)
				}
			}
		}
		if shellcheck != "" {
			if out, err := exec.Command(shellcheck, s).CombinedOutput(); err != nil {
				t.Errorf("shellcheck %s: %v\n%s", s, err, out)
			}
		}
	}
	if shellcheck == "" {
		t.Log("shellcheck not installed: scripts checked with sh -n only")
	}
}
