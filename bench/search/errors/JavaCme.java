import java.util.*;
public class JavaCme {
	public static void main(String[] args) {
		List<Integer> l = new ArrayList<>(List.of(1, 2, 3));
		for (Integer i : l)
			if (i == 1) l.remove(i);
	}
}
