	using System.Collections.Generic;
using Shop.Models;

namespace Shop.Services
{
    /// <summary>Keeps placed orders in memory.</summary>
    public class OrderService : ServiceBase
    {
        private readonly Dictionary<string, Order> placed = new();

        public void Place(Order order)
        {
            foreach (var line in order.Lines)
            {
                var item = line.Item;
                Log("placing " + item.Label());
            }
            placed[order.Id] = order;
            Audit(order);
        }

        private void Audit(Order order)
        {
            Log(order.Describe());
        }
    }
}
