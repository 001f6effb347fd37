//go:build canary_rawderived

package canary

// RecordRawDerived is on in the canary_rawderived build.
const RecordRawDerived = true
