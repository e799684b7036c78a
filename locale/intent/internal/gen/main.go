// Command gen compiles sentence templates into the compact form package
// intent embeds: Home Assistant's, from its intents tarball, into
// data/ha-<lang>.json.gz, and Hark's own, from templates/<lang>/*.yaml,
// into data/hark-<lang>.json.gz. Run it with go generate in locale/intent.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/harkbox/hark/locale/intent/internal/source"
)

func main() {
	ha := flag.String("ha", "", "Home Assistant's intents tarball (empty: compile Hark's own templates only)")
	langs := flag.String("langs", "en,de,fr,es", "the languages, comma separated")
	dir := flag.String("dir", ".", "the intent package's directory: templates/ is read from it, data/ written")
	flag.Parse()
	if err := source.Generate(*dir, *ha, strings.Split(*langs, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
