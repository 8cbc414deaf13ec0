	using System;

namespace Shop.Services
{
    public abstract class ServiceBase
    {
        protected void Log(string message)
        {
            Console.Error.WriteLine($"[{GetType().Name}] {message}");
        }
    }
}
