package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// askedTheSame asks op on the socket of root, answers it with the session s and from s's index alone
// (as a command with no process to ask), and wants one answer.
func askedTheSame[A, R any](t *testing.T, s *Session, root string, op *Operation[A, R], a A) {
	t.Helper()
	ctx := context.Background()
	asked, err := op.Ask(ctx, root, a)
	if err != nil {
		t.Fatalf("%s on the socket: %v", op.Name, err)
	}
	answered, err := op.Answer(ctx, s, a)
	if err != nil {
		t.Fatalf("%s in the process: %v", op.Name, err)
	}
	var own R
	err = s.Read(ctx, func(ix *index.Index) (err error) {
		own, err = op.Own(ctx, ix, a)
		return err
	})
	if err != nil {
		t.Fatalf("%s from the index alone: %v", op.Name, err)
	}
	x, _ := json.Marshal(asked)
	y, _ := json.Marshal(answered)
	z, _ := json.Marshal(own)
	if string(x) != string(y) || string(y) != string(z) || string(x) == "null" {
		t.Errorf("%s: the socket answered %.300s, the session %.300s, the index alone %.300s", op.Name, x, y, z)
	}
}

// Each operation of the table answers the same on the socket, in the process and from an index alone,
// and a bad argument is refused the same way, as the request's fault, on either.
func TestOperationsAnswerTheSameOnTheSocket(t *testing.T) {
	root := cartWorkspace(t)
	writeFile(t, root, "shop/cart_item.go", "package shop\n\n// CartItem is a line of the cart.\ntype CartItem struct{ Price int }\n\n// CartTotal adds the cart's items.\nfunc CartTotal(items []CartItem) int { return 0 }\n")
	writeFile(t, root, "shop/checkout/cart_checkout.go", "package checkout\n\n// CheckoutCart pays for the cart.\nfunc CheckoutCart() {}\n")
	s := open(t, Options{Root: root, Listen: true})
	askedTheSame(t, s, root, OpEntities, EntitiesArgs{Top: 3})
	askedTheSame(t, s, root, OpExplore, ExploreArgs{Name: "cart", Limit: 2})
	askedTheSame(t, s, root, OpSymbols, SymbolArgs{Name: "AddToCart"})
	askedTheSame(t, s, root, OpPicture, PictureArgs{Top: 3})
	askedTheSame(t, s, root, OpOutline, index.OutlineRequest{Budget: 300})
	ctx := context.Background()
	for _, bad := range []ExploreArgs{{Name: " "}, {Name: "cart", Limit: -1}, {Name: "cart", Limit: index.MaxListed + 1}} {
		_, asked := OpExplore.Ask(ctx, root, bad)
		_, answered := OpExplore.Answer(ctx, s, bad)
		if !errors.Is(asked, index.ErrInvalid) || !errors.Is(answered, index.ErrInvalid) || asked.Error() != answered.Error() {
			t.Errorf("explore %+v: %v on the socket, %v in the process; want one refusal, the request's fault", bad, asked, answered)
		}
	}
	if _, err := OpSymbols.Ask(ctx, root, SymbolArgs{Name: "AddToCart", Kind: "nope"}); !errors.Is(err, index.ErrInvalid) {
		t.Errorf("symbols of an unknown kind: %v, want the request's fault", err)
	}
	// an unknown entity is the answer, not the process's failure: the command reports it
	if _, err := OpExplore.Ask(ctx, root, ExploreArgs{Name: "zzzqqq"}); err == nil || errors.Is(err, ErrNoSession) {
		t.Errorf("explore of an unknown entity: %v, want its error as the answer", err)
	}
	if _, err := askAt(ctx, s.listener.path, "nonsense", None{}); !errors.Is(err, ErrNoSession) {
		t.Errorf("an operation the process does not know: %v, want ErrNoSession (asked elsewhere)", err)
	}
}

// The README states each operation's readiness, as the table declares it.
func TestReadmeStatesEachReadiness(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(string(readme), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 4 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[len(cells)-2])
		}
	}
	for _, op := range Operations() {
		if got, ok := rows[op.Name]; !ok || got != op.Ready.String() {
			t.Errorf("the README's operation %s: readiness %q, want %q (the table in session/operations.go)", op.Name, got, op.Ready)
		}
	}
}

// Before the first build is in, each operation answers as its readiness says, whoever asks: a pack at
// once, marked partial; the others wait for the build (and answer once it is in); the status and the
// state at once.
func TestReadinessIsTheTables(t *testing.T) {
	root := cartWorkspace(t)
	writeFile(t, root, "shop/cart_item.go", "package shop\n\n// CartItem is a line of the cart.\ntype CartItem struct{ Price int }\n")
	s, err := Open(context.Background(), Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// not started: no build runs, so a wait for it ends only with its context
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	p, err := OpContext.Answer(short(), s, index.Request{Text: "`AddToCart` puts nothing in the cart"})
	if err != nil || p.Partial == nil {
		t.Fatalf("context before the first build: %v, partial %+v; want a partial pack at once", err, p)
	}
	if _, err := OpExplore.Answer(short(), s, ExploreArgs{Name: "cart"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("explore before the first build: %v, want it to wait for the build", err)
	}
	if _, err := OpSymbols.Answer(short(), s, SymbolArgs{Name: "AddToCart"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("symbols before the first build: %v, want it to wait for the build", err)
	}
	if _, err := OpReindex.Answer(short(), s, None{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("reindex before the first build: %v, want it to wait for the build", err)
	}
	if st, err := OpStatus.Answer(short(), s, None{}); err != nil || st.Ready {
		t.Errorf("status before the first build: %+v %v, want it at once, not ready", st, err)
	}
	if st, err := OpState.Answer(short(), s, None{}); err != nil || st.Ready {
		t.Errorf("state before the first build: %+v %v, want it at once, not ready", st, err)
	}
	s.Start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defs, err := OpSymbols.Answer(ctx, s, SymbolArgs{Name: "AddToCart"})
	if err != nil || len(defs) == 0 {
		t.Errorf("symbols once the build runs: %v %v, want AddToCart", defs, err)
	}
	if st, err := OpReindex.Answer(ctx, s, None{}); err != nil || !st.Ready || st.Files == 0 {
		t.Errorf("reindex once the build runs: %+v %v, want the state of a built index", st, err)
	}
	if p, err := OpContext.Answer(ctx, s, index.Request{Text: "`AddToCart` puts nothing in the cart"}); err != nil || p.Partial != nil {
		t.Errorf("context after the first build: %v, partial %+v; want a whole pack", err, p)
	}
}
