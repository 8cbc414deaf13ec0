#import <Foundation/Foundation.h>

@interface Log : NSObject
+ (void)write:(NSString *)text level:(int)level;
- (void)flush;
@end
