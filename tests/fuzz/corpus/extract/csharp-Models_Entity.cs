	using System;

namespace Shop.Models
{
    /// <summary>Anything with a price in cents.</summary>
    public interface IPriced
    {
        long Price();
    }

    /// <summary>Base class of persisted objects.</summary>
    public abstract class Entity
    {
        protected Entity(string id)
        {
            Id = id;
            Touch();
        }

        public string Id { get; }

        public DateTime Updated { get; private set; }

        protected void Touch()
        {
            Updated = DateTime.UtcNow;
        }

        protected void Validate()
        {
            if (string.IsNullOrEmpty(Id))
                throw new InvalidOperationException("entity without id");
        }
    }
}
