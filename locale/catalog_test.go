package locale

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// spokenKeys walks the module's Go source (tests and testdata aside) and
// returns every sentence key handed to T or Key as a literal, with where
// it is. Spoken sentences go through T, so this is every fixed sentence
// Hark says.
func spokenKeys(t *testing.T) map[string]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "build", "testdata", "node_modules", ".git", "buildroot":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "T" && sel.Sel.Name != "Key" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil {
				rel, _ := filepath.Rel(root, fset.Position(lit.Pos()).Filename)
				keys[s] = rel
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

var verb = regexp.MustCompile(`%(?:\[(\d+)\])?[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]`)

// verbs lists a format's verbs by argument, so "%[2]s ... %[1]d" and
// "%d ... %s" compare equal when they use the same arguments the same way.
func verbs(format string) []string {
	var out []string
	next := 1
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if strings.HasSuffix(m[0], "%") {
			continue
		}
		arg := next
		if m[1] != "" {
			arg, _ = strconv.Atoi(m[1])
		}
		next = arg + 1
		out = append(out, strconv.Itoa(arg)+m[0][len(m[0])-1:])
	}
	slices.Sort(out)
	return out
}

// TestCatalogueComplete: every sentence Hark says has a translation in
// every language, using the same arguments, and no language keeps a
// sentence Hark no longer says.
func TestCatalogueComplete(t *testing.T) {
	keys := spokenKeys(t)
	if len(keys) < 50 {
		t.Fatalf("found only %d spoken sentences in the source: the scan is broken", len(keys))
	}
	for _, l := range All[1:] {
		table := tables[l]
		for k, where := range keys {
			tr, ok := table[k]
			if !ok {
				t.Errorf("%s: %q (%s) has no translation", l, k, where)
				continue
			}
			if !slices.Equal(verbs(k), verbs(tr)) {
				t.Errorf("%s: %q is translated as %q, with other arguments", l, k, tr)
			}
		}
		for k := range table {
			if _, ok := keys[k]; !ok {
				t.Errorf("%s: %q is translated but never said", l, k)
			}
		}
	}
}

// TestNoSentenceBypassesTheCatalogue: no spoken sentence is written
// straight into a command's response: a literal or a fmt.Sprintf handed
// to command.Said or command.Failed or set as a Response's Spoken would be
// said in English whatever the user spoke.
func TestNoSentenceBypassesTheCatalogue(t *testing.T) {
	root, _ := filepath.Abs("..")
	fset := token.NewFileSet()
	english := func(e ast.Expr) bool {
		switch v := e.(type) {
		case *ast.BasicLit:
			s, _ := strconv.Unquote(v.Value)
			return v.Kind == token.STRING && strings.IndexFunc(s, unicode.IsLetter) >= 0
		case *ast.CallExpr:
			if sel, ok := v.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "fmt" && sel.Sel.Name == "Sprintf" {
					return true
				}
			}
		case *ast.BinaryExpr: // "It's " + x
			return v.Op == token.ADD
		}
		return false
	}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "build" || d.Name() == "testdata" || d.Name() == ".git" || d.Name() == "buildroot") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "test/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := v.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := fn.X.(*ast.Ident); ok && x.Name == "command" {
						name = fn.Sel.Name
					}
				case *ast.Ident:
					if f.Name.Name == "command" {
						name = fn.Name
					}
				}
				if (name == "Said" || name == "Failed") && len(v.Args) > 0 && english(v.Args[0]) {
					t.Errorf("%s: a sentence handed to %s skips the catalogue", fset.Position(v.Pos()), name)
				}
			case *ast.KeyValueExpr:
				if k, ok := v.Key.(*ast.Ident); ok && k.Name == "Spoken" && english(v.Value) {
					t.Errorf("%s: a Spoken sentence skips the catalogue", fset.Position(v.Pos()))
				}
			}
			return true
		})
		return nil
	})
}

// TestCatalogueScanFindsBypass: the scan would see a sentence that skips
// the catalogue, which the test above would then fail on.
func TestCatalogueScanFindsBypass(t *testing.T) {
	keys := spokenKeys(t)
	for _, k := range []string{"Timer set for %s.", "The microphone is off.", "Factory reset cancelled.", "Sorry, I had trouble with that."} {
		if _, ok := keys[k]; !ok {
			t.Errorf("the scan misses %q", k)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "go.mod")); err != nil {
		t.Fatalf("the scan's root is not the module: %v", err)
	}
}

func TestTranslate(t *testing.T) {
	if got := German.T("Timer set for %s.", German.Duration(5*60e9)); got != "Timer für 5 Minuten gestellt." {
		t.Errorf("German timer: %q", got)
	}
	if got := Lang("xx").T("Timer set for %s.", "5 minutes"); got != "Timer set for 5 minutes." {
		t.Errorf("unknown language: %q", got)
	}
}
