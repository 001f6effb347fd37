package pipeline

// SetPackDigests gives the pipeline the digest of the files each pack's decisions can
// depend on: its own contract and policy directories, core's and every shared file. It
// is set once, before the pipeline is shared.
func (p *Pipeline) SetPackDigests(digests map[string]string) { p.packDigests = digests }

// PackDigest is the digest of the files a pack's decisions can depend on: two bundles
// with the same PackDigest decide that pack's requests alike, so a replay may skip its
// records. Empty for a pack the bundle does not have.
func (p *Pipeline) PackDigest(pack string) string { return p.packDigests[pack] }
