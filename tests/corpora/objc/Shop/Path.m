#import "Path.h"

@implementation Path
- (void)stroke {
	[super stroke];
}
@end
