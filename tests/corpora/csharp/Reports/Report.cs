using System.Collections.Generic;
using System.Linq;

namespace Shop.Reports
{
    /// <summary>
    /// A report whose calls are decided by the types of their receivers:
    /// a field, a parameter, a foreach variable, a lambda's over a list,
    /// new T(), a class-qualified static call, a string.
    /// </summary>
    public class Report
    {
        private readonly Printer printer;
        private readonly Dictionary<string, int> groups = new();
        private readonly List<Section> sections = new List<Section>();

        public Report(Printer printer)
        {
            this.printer = printer;
        }

        /// <summary>Delegates to the printer's method of the same name.</summary>
        public string GetPattern() => printer.GetPattern();

        /// <summary>Dictionary.Remove, not the repository's only Remove.</summary>
        public void Forget(string key)
        {
            groups.Remove(key);
        }

        /// <summary>The section's IsValid, not this class's.</summary>
        public bool IsValid(Section section) => section.IsValid();

        public IEnumerable<Section> Valid() => sections.Where(s => s.IsValid());

        public string Render(string title)
        {
            var lines = new List<string>();
            foreach (var section in sections)
            {
                if (section.IsValid())
                    lines.Add(this.printer.Format(section.Title));
            }
            return Formats.Pad(title.Trim(), 40) + string.Join("\n", lines);
        }

        public string Preview(string title) => new Printer("> {0}").Format(title);
    }
}
