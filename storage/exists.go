package storage

import (
	"os"
	"strings"
)

// Exists reports whether dir holds a store: one Open made there before.
// A store that lost its MANIFEST still is one (Open sets its files aside
// and reads them back), as is one whose files a recovery set aside.
func Exists(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case e.Type().IsRegular() && badgerFile(name) && name != "LOCK":
			return true
		case e.IsDir() && strings.HasPrefix(name, "recovered-"):
			return true
		}
	}
	return false
}
