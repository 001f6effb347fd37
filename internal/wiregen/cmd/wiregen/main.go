// Command wiregen writes wire_gen.go, the vocabulary's wire types, from the core CUE
// contracts. go generate runs it at the module root.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/handoff-dev/handoff/internal/wiregen"
)

func main() {
	contracts := flag.String("contracts", "contracts", "the CUE module holding core/")
	out := flag.String("out", "wire_gen.go", "the file to write")
	flag.Parse()
	src, err := wiregen.Generate(*contracts)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
