#import "Log.h"

@implementation Log
+ (void)write:(NSString *)text level:(int)level {
	NSLog(@"%d %@", level, text);
}

- (void)flush {
}
@end
