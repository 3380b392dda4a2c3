#!/usr/bin/env bash
# End-to-end test of the Neovim plugin: a headless Neovim with only this plugin on its runtime path,
# against the real server (CTXMAP_BIN), in a small git workspace written here.
# Set CTXMAP_WORKSPACE (a git repository), CTXMAP_FILE, CTXMAP_WORD and CTXMAP_EXPECT to run the same
# checks in another workspace. Exit status: 0 passed or skipped (the reason is printed), 1 failed.
set -euo pipefail

if [ -z "${CTXMAP_BIN:-}" ]; then
	echo "SKIP: set CTXMAP_BIN to a ctxmap binary to test the Neovim plugin"
	exit 0
fi
if [ ! -x "$CTXMAP_BIN" ]; then
	echo "FAIL: CTXMAP_BIN=$CTXMAP_BIN is not an executable file" >&2
	exit 1
fi
if ! command -v nvim >/dev/null; then
	echo "FAIL: nvim not found (Debian: apt-get install -y neovim)" >&2
	exit 1
fi

plugin="$(cd "$(dirname "$0")/.." && pwd)"
CTXMAP_BIN="$(cd "$(dirname "$CTXMAP_BIN")" && pwd)/$(basename "$CTXMAP_BIN")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Neovim's and ctxmap's state (cache, logs, shada) stay in the temporary folder.
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config"

if [ -z "${CTXMAP_WORKSPACE:-}" ]; then
	ws="$tmp/shop"
	mkdir -p "$ws/billing"
	cat >"$ws/go.mod" <<'GO'
module example.com/shop

go 1.22
GO
	cat >"$ws/billing/invoice.go" <<'GO'
package billing

// Invoice is the bill sent to a customer once an order ships.
type Invoice struct {
	Number string
	Lines  []InvoiceLine
	Total  int
}

// InvoiceLine is one product on an invoice.
type InvoiceLine struct {
	Product string
	Qty     int
	Price   int
}

// NewInvoice totals the lines of an order into an invoice.
func NewInvoice(number string, lines []InvoiceLine) *Invoice {
	inv := &Invoice{Number: number, Lines: lines}
	for _, l := range lines {
		inv.Total += l.Qty * l.Price
	}
	return inv
}
GO
	cat >"$ws/billing/discount.go" <<'GO'
package billing

// The invoice total is wrong when a discount applies twice: ApplyDiscount must run once per invoice.
func ApplyDiscount(inv *Invoice, percent int) {
	inv.Total -= inv.Total * percent / 100
}

// 🧾 invoice receipts print the discount on their own line.
func DiscountLine(inv *Invoice, percent int) InvoiceLine {
	return InvoiceLine{Product: "discount", Qty: 1, Price: -inv.Total * percent / 100}
}

// TODO: refuse a discount above 100 percent in ApplyDiscount.
GO
	cat >"$ws/billing/invoice_test.go" <<'GO'
package billing

import "testing"

func TestApplyDiscount(t *testing.T) {
	inv := NewInvoice("A1", []InvoiceLine{{Product: "tea", Qty: 2, Price: 50}})
	ApplyDiscount(inv, 10)
	if inv.Total != 90 {
		t.Fatalf("total %d, want 90", inv.Total)
	}
}
GO
	cat >"$ws/main.go" <<'GO'
package main

import (
	"fmt"

	"example.com/shop/billing"
)

func main() {
	inv := billing.NewInvoice("A1", []billing.InvoiceLine{{Product: "tea", Qty: 2, Price: 50}})
	billing.ApplyDiscount(inv, 10)
	fmt.Println(inv.Total)
}
GO
	git -C "$ws" init -q
	git -C "$ws" add -A
	git -C "$ws" -c user.name=test -c user.email=test@example.com commit -q -m "Invoices: totals and discounts"
	export CTXMAP_WORKSPACE="$ws" CTXMAP_FILE="billing/discount.go" CTXMAP_WORD="invoice"
	export CTXMAP_EXPECT="func ApplyDiscount" CTXMAP_UTF16_LINE="🧾"
fi

limit=()
if command -v timeout >/dev/null; then
	limit=(timeout 900)
fi
cd "$CTXMAP_WORKSPACE"
export CTXMAP_BIN CTXMAP_PLUGIN="$plugin"
"${limit[@]}" nvim --headless --clean -u NONE -n -i NONE \
	--cmd "lua vim.opt.rtp:prepend(os.getenv('CTXMAP_PLUGIN'))" \
	-c "lua dofile(os.getenv('CTXMAP_PLUGIN') .. '/test/ctxmap_test.lua')"
