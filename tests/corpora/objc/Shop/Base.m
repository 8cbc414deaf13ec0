#import "Base.h"

@implementation Base
- (NSString *)describe {
	return [self className];
}
@end
