require "json"
require_relative "tax/calculator"

module Billing
  # Default currency when an invoice names none.
  DEFAULT_CURRENCY = "EUR"

  # An invoice with lines and a computed total.
  class Invoice
    attr_reader :lines

    def initialize(customer, currency = DEFAULT_CURRENCY)
      @customer = customer
      @currency = currency
      @lines = []
    end

    # Adds a line; quantities must be positive.
    def add_line(sku, quantity, price)
      raise ArgumentError, "quantity must be positive for #{sku}" if quantity <= 0

      # TODO: merge lines with the same sku
      @lines << { sku: sku, quantity: quantity, price: price }
    end

    def total
      subtotal = @lines.sum { |l| l[:quantity] * l[:price] }
      Tax::Calculator.new(@currency).apply(subtotal)
    end

    def self.from_json(text)
      data = JSON.parse(text)
      invoice = new(data["customer"], data.fetch("currency", DEFAULT_CURRENCY))
      data["lines"].each { |l| invoice.add_line(l["sku"], l["quantity"], l["price"]) }
      invoice
    end
  end
end

def format_amount(amount)
  format("%.2f", amount)
end
