using System.Collections.Generic;

namespace Shop.Reports
{
    /// <summary>A part of a report, with a check of the same name as Report's.</summary>
    public class Section
    {
        public Section(string title, List<string> lines)
        {
            Title = title;
            Lines = lines;
        }

        public string Title { get; }
        public List<string> Lines { get; }

        public bool IsValid() => Title.Trim().Length > 0 && Lines.Count > 0;
    }
}
