	using System.Collections.Generic;
using System.Linq;

namespace Shop.Models
{
    public class Order : Entity, IPriced
    {
        /// <summary>One line of an order: an item and a quantity.</summary>
        public class Line
        {
            public Line(Item item, int quantity)
            {
                Item = item;
                Quantity = quantity;
            }

            public Item Item { get; }
            public int Quantity { get; }

            public long Subtotal() => Item.Price() * Quantity;
        }

        private readonly List<Line> lines = new List<Line>();

        public Order(string id) : base(id)
        {
        }

        public IReadOnlyList<Line> Lines => lines;

        public void Add(Item item, int quantity)
        {
            lines.Add(new Line(item, quantity));
            Touch();
        }

        public long Price()
        {
            this.Validate();
            return Total();
        }

        private long Total() => lines.Sum(l => l.Subtotal());

        public string Describe()
        {
            return $"{Id}: {lines.Count} lines, {Total()} cents";
        }
    }
}
