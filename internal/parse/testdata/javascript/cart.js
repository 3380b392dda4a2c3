import { formatPrice } from "./money";
const logger = require("./logger");

export const MAX_ITEMS = 50;

/**
 * A shopping cart that keeps items by SKU.
 */
export class Cart {
  constructor(owner) {
    this.owner = owner;
    this.items = new Map();
  }

  // Adds one unit of an item, up to MAX_ITEMS in total.
  add(item) {
    if (this.items.size >= MAX_ITEMS) {
      throw new Error(`cart for ${this.owner} is full`);
    }
    // TODO: merge quantities instead of replacing the entry
    this.items.set(item.sku, item);
    logger.info("item added to cart", item.sku);
  }

  total() {
    let sum = 0;
    for (const item of this.items.values()) {
      sum += item.price * item.quantity;
    }
    return sum;
  }
}

/** Renders the cart as one line of text. */
export function describeCart(cart) {
  return `${cart.items.size} items, ${formatPrice(cart.total())}`;
}

const emptyCart = (owner) => new Cart(owner);

function checkout(cart, payment) {
  if (!payment.authorize(cart.total())) {
    logger.warn("payment was declined for cart %s", cart.owner);
    return false;
  }
  return true;
}

module.exports = { Cart, describeCart, emptyCart, checkout };
