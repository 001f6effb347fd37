package console

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contractSchema is a content schema as the engine serves it: properties described
// by their doc comments, named definitions behind "$ref".
const contractSchema = `{
  "$defs": {
    "ID": {"type": "string", "description": "#ID is an identifier chosen by a host."},
    "Claim": {"type": "object", "description": "#Claim is one factual claim.",
      "properties": {"id": {"$ref": "#/$defs/ID"}, "statement": {"type": "string", "description": "statement is the claim\nin words."}},
      "required": ["statement", "id"]},
    "Date": {"type": "string"}
  },
  "type": "object",
  "properties": {
    "claims": {"type": "array", "items": {"$ref": "#/$defs/Claim"}, "description": "claims are the claims made."},
    "offer": {"type": "string", "description": "offer is what is offered."},
    "owner": {"$ref": "#/$defs/ID"},
    "due": {"anyOf": [{"$ref": "#/$defs/Date"}, {"type": "null"}], "description": "due is when."},
    "fields": {"type": "object", "additionalProperties": {"type": "string", "description": "a field's type."}}
  },
  "required": ["offer", "claims"]
}`

func TestContentFieldsAreLabelledByTheContract(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(contractSchema), &doc))
	var content map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"zeta": 1.5, "owner": "ops", "due": null, "offer": "30% off",
		"claims": [{"id": "C-1", "statement": "Cold brew grows"}], "fields": {"verdict": "string"}, "flag": true, "tags": []}`), &content))
	fs := contentFields(content, newSchema(doc))

	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"offer", "claims", "due", "fields", "flag", "owner", "tags", "zeta"}, names,
		"the required fields in the contract's order, then the others by name")
	byName := map[string]field{}
	for _, f := range fs {
		byName[f.Name] = f
	}
	assert.Equal(t, field{Name: "offer", Description: "offer is what is offered.", Kind: "text", Text: "30% off"}, byName["offer"])
	assert.Equal(t, "", byName["owner"].Description, "a scalar definition's words label nothing")
	assert.Equal(t, "due is when.", byName["due"].Description)
	assert.Equal(t, "empty", byName["due"].Kind)
	assert.Equal(t, "plain", byName["flag"].Kind)
	assert.Equal(t, "1.5", byName["zeta"].Text)
	assert.Equal(t, "empty", byName["tags"].Kind)

	claims := byName["claims"]
	require.Equal(t, "list", claims.Kind)
	require.Len(t, claims.Items, 1)
	claim := claims.Items[0]
	assert.Equal(t, "object", claim.Kind)
	assert.Equal(t, "Claim is one factual claim.", claim.Description, "an object's definition describes it")
	assert.Equal(t, "Cold brew grows", claim.Summary)
	require.Len(t, claim.Items, 2)
	assert.Equal(t, "statement", claim.Items[0].Name, "a definition's required order")
	assert.Equal(t, "statement is the claim in words.", claim.Items[0].Description, "a doc comment's lines joined")

	extra := byName["fields"].Items
	require.Len(t, extra, 1)
	assert.Equal(t, field{Name: "verdict", Description: "a field's type.", Kind: "text", Text: "string"}, extra[0],
		"a key of the agent's choosing is described by the schema of the extra keys")
}

func TestContentFieldsWithoutASchema(t *testing.T) {
	fs := contentFields(map[string]any{"notes": "line one\nline two", "b": map[string]any{}}, schema{})
	require.Len(t, fs, 2)
	assert.Equal(t, "b", fs[0].Name)
	assert.Equal(t, "empty", fs[0].Kind)
	assert.Equal(t, "long", fs[1].Kind, "a text of more than one line is a block")
}
