// Package contract is the CUE side of a bundle: it loads the contracts module (core and
// one directory per pack), compiles each pack into its tables and the validators of its
// request and artifact definitions, and exports the tables Rego reads as data.
//
// A Validator answers from a schema compiled from its CUE definition on first use and
// asks CUE itself only where the schema cannot decide. The CUE context is not safe for
// concurrent use: Contracts serializes every use of it (Lock, Unlock); validators and
// Pack are safe for concurrent use.
package contract
