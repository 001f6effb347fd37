package bundle

import (
	"os"
	"path/filepath"
)

// IsBundleDir says whether dir holds a bundle: contracts/cue.mod/module.cue (the CUE
// module of the contracts) and a policies directory beside it.
func IsBundleDir(dir string) bool {
	mod, err := os.Stat(filepath.Join(dir, "contracts", "cue.mod", "module.cue"))
	if err != nil || !mod.Mode().IsRegular() {
		return false
	}
	pol, err := os.Stat(filepath.Join(dir, "policies"))
	return err == nil && pol.IsDir()
}
