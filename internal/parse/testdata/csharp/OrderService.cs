using System;
using System.Collections.Generic;
using Shop.Billing;

namespace Shop.Orders
{
    /// <summary>
    /// Places and cancels orders.
    /// </summary>
    public class OrderService : IOrderService
    {
        private const int MaxLines = 100;
        private readonly Dictionary<Guid, Order> _orders = new();

        public event EventHandler<Order> Placed;

        public int Count => _orders.Count;

        public OrderService(IInvoiceWriter invoices)
        {
            Invoices = invoices;
        }

        public IInvoiceWriter Invoices { get; }

        /// <summary>Places an order and writes its invoice.</summary>
        public Order Place(Cart cart)
        {
            if (cart.Lines.Count > MaxLines)
            {
                throw new InvalidOperationException($"Order has too many lines: {cart.Lines.Count}");
            }
            var order = new Order(Guid.NewGuid(), cart.Lines);
            _orders[order.Id] = order;
            // TODO: retry invoice writing on transient failures
            Invoices.Write(order);
            Placed?.Invoke(this, order);
            return order;
        }
    }

    public interface IOrderService
    {
        Order Place(Cart cart);
    }

    public struct OrderLine
    {
        public string Sku;
        public int Quantity;
    }

    public enum OrderStatus { Open, Paid, Cancelled }
}
