package pack

import "testing"

// BenchmarkAssemble packs 200 candidates into 8,000 tokens. "warm": the process has counted these
// texts before (the usual case for a language server on one workspace). "cold": nothing counted yet.
func BenchmarkAssemble(b *testing.B) {
	tok := tokenizer(b, "")
	cands := genCandidates(42, 200)
	ents := genEntities(42)
	run := func(b *testing.B, tk *Tokenizer) {
		p, err := Assemble("Fix the crash in RuleIndex when a profile has no rules", bugFix, ents, cands,
			Options{Budget: 8000, Tokenizer: tk, Shares: bugFixShares})
		if err != nil || p.Tokens > 8000 {
			b.Fatalf("pack of %v tokens: %v", p, err)
		}
	}
	b.Run("warm", func(b *testing.B) {
		run(b, tok)
		b.ResetTimer()
		for b.Loop() {
			run(b, tok)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			run(b, &Tokenizer{name: tok.name, enc: tok.enc, cache: newCountCache(4 << 20)})
		}
	})
}

// BenchmarkCount is the tokenizer alone over a large body of code, counted once and again.
func BenchmarkCount(b *testing.B) {
	tok := tokenizer(b, "")
	var text string
	for _, c := range genCandidates(7, 200) {
		text += c.Full + "\n"
	}
	b.Run("warm", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		tok.Count(text)
		for b.Loop() {
			tok.Count(text)
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			fresh := &Tokenizer{name: tok.name, enc: tok.enc, cache: newCountCache(4 << 20)}
			fresh.Count(text)
		}
	})
	b.Run("encoder", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			tok.enc.EncodeOrdinary(text)
		}
	})
}
