#import <Foundation/Foundation.h>

@interface Base : NSObject
- (NSString *)describe;
@end
