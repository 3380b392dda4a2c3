package entity

import (
	"strings"

	"github.com/ctxmap/ctxmap/internal/words"
)

// noise holds the words that never name a business concept, beyond words.Stopword. They appear in so
// many files of so many projects that, as entities, they would only push the real ones down, and as
// parts of compounds they would split one concept into many (QualityProfileManager is QUALITY_PROFILE).
var noise = stems(
	// where code sits, not what it is
	`src source main lib libs pkg pkgs internal cmd bin dist out target vendor third party gen generated
	res resource asset static www org com net io app apps include inc ext contrib sample demo doc docs core
	tool tooling`,
	// languages, formats and file extensions
	`java kotlin python golang rust ruby javascript typescript csharp cpp cxx hpp php scala swift lua perl
	haskell elixir erlang clojure bash shell powershell htm scss sass markdown ini cfg csv proto protobuf
	gradle maven mvn npm pnpm yarn pip jsx mjs cjs dart node nodejs dotnet`,
	// keywords and conventional names the shared stopword list leaves out
	`pass elif del nonlocal cls kwargs noqa pragma unsafe impl dyn mut ref deref`,
	// the roles a type plays in a design, not the thing it is about
	`impl util helper common shared misc base abstract default generic factory wrapper builder adapter manager
	handler provider delegate proxy listener callback mixin dao dto pojo bean`,
	// plumbing every program has: values, containers, errors, sizes
	`value data info obj object item elem tmp temp foo bar baz val var arg param opt option buf buffer
	ptr len num str idx fmt ctx context result ret err error exception list map dict array slice vec tuple
	type count size length max min total number`,
	// accessor, lifecycle and CRUD verbs: in method names of every type, they say what is done, not to what
	`get set is has can new init initialize setup teardown make create update delete remove add put find
	load save read write check handle process apply execute exec call invoke run start stop open close
	reset clear`,
	// string and formatting helpers of the standard libraries
	`join split trim concat append equal println printf sprintf errorf substr substring tostring strconv
	itoa atoi`,
	// tests
	`test testing spec mock mocked fake stub fixture assert suite bench benchmark expect`,
)

// infra holds technical words: they may be entities (a web framework's ROUTER is real), but they name
// the machinery rather than the business, so their entities are ranked lower, marked infrastructure,
// and trimmed from the ends of compounds (QualityProfileService -> QUALITY_PROFILE).
var infra = stems(`server client service controller repository repo model view api http https rest rpc
	grpc db database sql cache config configuration setting log logger logging metric queue worker
	middleware router route request response storage store stream thread pool lock socket connection conn
	transport protocol serializer plugin platform framework container docker kubernetes cli web endpoint
	schema migration`)

// generic holds nouns that every program uses for its own plumbing (a name, a key, a path): they may
// be entities, ranked lower, since an issue that says "name" rarely means the program's names.
var generic = stems(`name key file path dir field text time date code body content line column row node
	entry attr attribute flag mode state status`)

// shortNoise: two-letter folder names that are technical, not features.
var shortNoise = words.Set(`io os ui db fs vm ci cd id ip js ts go py rb rs cc pb gz ms ns en ok qa tx rx gl hw
	sw ee`)

// utilFolders and infraFolders place a file: entities that live mostly there are util or infrastructure.
var utilFolders = words.Set(`util utils helper helpers common shared misc scripts support`)

var infraFolders = words.Set(`infra infrastructure deploy deployment deployments migrations migration db database
	docker k8s helm terraform ci config configs settings platform build .github`)

func stems(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = true
			m[words.Stem(w)] = true
		}
	}
	return m
}
